#!/bin/sh
':' //; if [ -n "$NODE_EXTRA_CA_CERTS" ]; then case "$NODE_OPTIONS" in *--use-*-ca*) ;; *) HARN_DEFERRED_EXTRA_CA_CERTS=$NODE_EXTRA_CA_CERTS; export HARN_DEFERRED_EXTRA_CA_CERTS; unset NODE_EXTRA_CA_CERTS ;; esac; fi
':' //; exec node "$0" "$@"
// The `harn` command. The real code is the bundle that `pnpm build` writes.
//
// This file is both a POSIX sh script and CommonJS: sh runs the two lines
// above (`':'` is the no-op command), JavaScript reads each as a string
// statement and a comment. Run as a program, the sh part moves
// NODE_EXTRA_CA_CERTS aside before starting Node, which would otherwise
// parse that whole CA bundle at start-up (~50 ms of CPU) for every command,
// though only scripts that make HTTPS requests need it; the CLI puts the
// variable back and its TLS clients trust the bundle on first use
// (cli/src/deferred-ca.ts). A CA store chosen in NODE_OPTIONS
// (--use-openssl-ca, --use-bundled-ca, --use-system-ca) keeps Node's own
// handling. Run by `node` directly (`node cli/bin/harn.cjs`) nothing is
// deferred.
require("../dist/harn.cjs");
