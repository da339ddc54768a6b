/** Process entry of the `folio` command (bin/folio.js); src/cli.ts only exports runCli, so tests can call it in-process. */
import './threadPool.js';
import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2));
