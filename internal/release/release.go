// Package release tests the provider as users get it: the release that
// scripts/release.sh builds into dist/, installed by each engine's
// `terraform init` from a registry (release_test.go), and the upgrade from
// every earlier version, whose states the tree's provider must plan as
// they are (upgrade_test.go). Its tests need the release in dist/ (make
// testacc builds it), gpg, and the clone's full git history.
package release
