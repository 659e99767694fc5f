// Package release tests the provider as users get it: the release in dist/
// installed by `terraform init`, and the upgrade from every earlier version.
// Its tests need that release, gpg and the clone's full git history.
package release
