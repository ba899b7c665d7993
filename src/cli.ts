#!/usr/bin/env node
// The executable: everything else is in program.ts, so tests can build the program without running it.
import { main } from './program.js';

process.exitCode = await main(process.argv);
