// Package docs tests what users read and copy: every example on each
// engine, every guide command by command, every link, every error the
// provider can raise in an error table, and every version named.
package docs
