// Package local is the file-system state backend: the state of one
// environment in {dir}/state.<env>.json, the lock shared by every
// environment of the directory in {dir}/.kyku.lock, the journal of finished
// changes in {dir}/state.<env>.journal (JSON lines), backups under
// {dir}/backups/ and named objects (saved plans, audit records) at
// {dir}/<key>. With Options.GitIgnore, the first of them comes with a
// {dir}/.gitignore that keeps the directory out of git.
//
// Durability: state, backups and objects are written atomically (temp file
// in the same directory, fsync, rename, fsync of the directory), so a crash
// leaves either the old or the new file, never a partial one. A journal
// append is one write of one line followed by a data sync (the journal grows
// in zeroed chunks, so the sync writes no size); a torn last line left by a
// crash, and the zeros after the last line, are ignored by Entries and cut
// by the next Append.
//
// Concurrency: a *Backend is safe for concurrent use by the goroutines of
// one process. Several processes (or several Backend values) may share one
// directory: the lock file serializes them, and Write refuses with
// statemgr.ErrConflict when the state changed since this Backend read it.
//
// The clock, host name and PID are injected through Options; lock waits use
// real timers.
package local
