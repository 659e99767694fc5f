// Package docs tests what users read and copy: every example folder checked
// by each engine (`fmt`, `validate`, and the `terraform test` files with
// their published mock defaults), every guide followed command by command
// on each engine that has what it needs, and every link of README.md and
// docs/.
package docs
