#!/usr/bin/env node
// The executable: everything else is in program.ts, so tests can build the program without running it.
import { setFlagsFromString } from 'node:v8';
import { processTerminal } from './commands/terminal.js';
import { exitOnUnexpected, main } from './program.js';

// docsync's pace is the service's rate limit (10 requests a second), not CPU, and a daemon
// shares its server: trade some of V8's speed for memory. Without it V8 let garbage pile up to
// three times the live heap before collecting; with it a large round peaks far lower, for some
// more CPU when nothing throttles the round (docs/benchmarks.md). Set here,
// not in the shebang or NODE_OPTIONS (which refuses it), so `node dist/cli.js` runs the same.
setFlagsFromString('--optimize-for-size');
// The young generation stays at its starting size (1 MB semi-spaces) instead of growing to
// 16 MB ones: V8 reads the growth factor when it grows, so this, unlike --max-semi-space-size,
// works after start. A first sync peaks lower with it, in the same time (the rate sets the
// pace; docs/benchmarks.md shows what it costs in CPU).
setFlagsFromString('--semi-space-growth-factor=1');

// An error thrown where no command awaits it (a timer's, an emitter's) would reach Node's
// default handler, which prints the stack: it is one sentence too (program.ts).
const fatal = exitOnUnexpected(process.argv);
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

process.exitCode = await main(process.argv, processTerminal());
