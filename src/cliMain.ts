/**
 * Process entry of the `folio` command (bin/folio.js loads the compiled file). Kept apart from
 * cli/runCli.ts so tests can import runCli without running a command at import time.
 */
import './runtime/threadPool.js';
import './runtime/sdkWarnings.js';
import { runCli } from './cli/runCli.js';

process.exitCode = await runCli(process.argv.slice(2));
