// Package docs tests what users read and copy: every example on each
// engine, every guide command by command, and every link.
package docs
