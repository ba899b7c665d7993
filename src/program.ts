/**
 * The `docsync` command line: parses arguments and hands each command to its module. Errors
 * reach the top here and become one clear line on stderr and the exit code of commands.md; an
 * error docsync did not expect (a bug) is one line too, and its stack trace is printed only with
 * `--debug`.
 */
import { Command, CommanderError, Option } from 'commander';
import { adviceFormHere } from './commands/advice-here.js';
import { usageText } from './commands/api-operations.js';
import { failureSentence } from './commands/failure-sentence.js';
import { type Commands, commandsOn, type GlobalOptions } from './commands/index.js';
import { countRepeats, LOG_LEVELS, logLevelOf } from './commands/log-level-options.js';
import type { Terminal } from './commands/terminal.js';
import { VERSION } from './commands/version.js';
import { inAdviceForm } from './domain/advice-form.js';
import { DocsyncError } from './domain/errors.js';
import { ExitCode, exitCodeList } from './domain/exit-codes.js';

/**
 * The command line, writing to `terminal`; each command's module is loaded when that command
 * runs. `exitCode()` is what the command that ran returned.
 */
export function buildProgram(terminal: Terminal): { program: Command; exitCode(): number } {
  let code: number = ExitCode.InSync;
  const commands = commandsOn(terminal, (returned) => {
    if (typeof returned === 'number') code = returned;
  });
  const program = rootCommand(terminal, commands);
  addInitCommand(program, commands);
  addSyncCommands(program, commands);
  addOperatorCommands(program, commands);
  addServiceCommands(program, commands);
  addSimulatorCommands(program, commands);
  return { program, exitCode: () => code };
}

/** `docsync` itself: the options every command shares, and `docsync --once`. */
function rootCommand(terminal: Terminal, commands: Commands): Command {
  const program = new Command('docsync')
    // Set before any subcommand is added, which inherits them: commander writes to the
    // terminal and throws where it would end the process, so main() says how it ends.
    .configureOutput({
      writeOut: (text) => terminal.stdout.write(text),
      writeErr: (text) => terminal.stderr.write(text),
    })
    .exitOverride()
    .description('Keeps a compliance service and a document folder tree in step, both ways.')
    .version(VERSION)
    .option(
      '-c, --config <file>',
      'configuration file (default: $DOCSYNC_CONFIG, else config/docsync.json here, else /etc/docsync/docsync.json)',
    )
    .option('--once', 'same as `docsync run --once`')
    .addOption(
      new Option('--log-level <level>', "log level, over the configuration's log.level")
        .choices(LOG_LEVELS)
        .conflicts(['verbose', 'quiet']),
    )
    .addOption(
      new Option('-v, --verbose', 'log more: debug (-vv: trace)')
        .argParser(countRepeats)
        .conflicts('quiet'),
    )
    .addOption(
      new Option('-q, --quiet', 'log only warnings and errors (-qq: errors)').argParser(
        countRepeats,
      ),
    )
    .option('--debug', 'when docsync stops on an error it did not expect, print its stack trace')
    // One level for every command, whichever of the three flags set it (commands read `logLevel`).
    .hook('preAction', (root) => {
      const level = logLevelOf(root.opts());
      if (level !== undefined) root.setOptionValue('logLevel', level);
    })
    .usage('[options] [command]')
    .showHelpAfterError('(run with --help for usage)')
    // Only here so an unknown command gets commander's "unknown command" error, not "too many
    // arguments": with a default action the program would otherwise take it as an argument.
    .argument('[command]')
    .action(async (unknown: string | undefined, options: GlobalOptions & { once?: boolean }) => {
      if (unknown !== undefined) program.error(`error: unknown command '${unknown}'`);
      if (!options.once) return program.help();
      return commands.run({ once: true, config: options.config, logLevel: options.logLevel });
    });
  return program;
}

/** `init`: a configuration that works, and what to run next. */
function addInitCommand(program: Command, commands: Commands): void {
  program
    .command('init')
    .description(
      'write a configuration that works (for the simulator, staging or production) and print the next commands; asks at a terminal, never overwrites a file',
    )
    .addOption(
      new Option('--for <service>', 'the built-in simulator, or the real service').choices([
        'simulator',
        'staging',
        'production',
      ]),
    )
    .option('--store <folder>', 'the folder for the documents')
    .option('--state <file>', 'the state database')
    .option('--client-id <id>', "the registration's client id (staging, production)")
    .option(
      '--redirect-uri <url>',
      'a redirect URL the registration allows, where `auth login` listens (default http://127.0.0.1:8789/callback)',
    )
    .option('--webhook', "take the service's webhooks (default for the simulator)")
    .option('--no-webhook', 'no webhook receiver: changes in the service arrive by polling')
    .option('--client-code <code>', 'the client code the service signs webhooks with')
    .option('--webhook-listen <host:port>', 'the webhook receiver (default 127.0.0.1:8787)')
    .option('--status-listen <host:port>', 'the status page (default 127.0.0.1:8788)')
    .option('--simulator-url <url>', 'where the simulator runs (default http://127.0.0.1:4010)')
    .option('--user <name>', 'the user the units run docsync as (default docsync)')
    .addHelpText(
      'after',
      '\nWhere it writes: --config FILE, else $DOCSYNC_CONFIG; else config/docsync.json here (simulator) or /etc/docsync/docsync.json (staging, production),\nand the secrets beside it (docsync.env beside docsync.json, <firm>.env beside <firm>.json). The client secret comes from a question at a terminal, or from DOCSYNC_CLIENT_SECRET.\n',
    )
    .action((_options, command: Command) => commands.init(command.optsWithGlobals()));
}

/** `run` and `status`: the sync, and what it did. */
function addSyncCommands(program: Command, commands: Commands): void {
  program
    .command('run')
    .description('the daemon: scheduled cycles, folder watcher, webhook receiver, status page')
    .option(
      '--once',
      `one catch-up cycle with the full reconcile, then exit (exit codes: ${exitCodeList()})`,
    )
    .option('--dry-run', 'print the plan with its decision-table rows and change nothing')
    .option('--force-deletes', 'let this run pass the delete safety rails')
    .option('--adopt-local', 'upload local folders that match nothing in the service')
    .option('--json', 'with --once: print the summary as one JSON object on stdout')
    .action((_options, command: Command) => commands.run(command.optsWithGlobals()));

  program
    .command('status')
    .description(
      'last cycle, cursors, pending pushes, conflicts, items in error, unmatched folders',
    )
    .option('--json', 'machine-readable output')
    .action((_options, command: Command) => commands.status(command.optsWithGlobals()));
}

/** `check`, `auth login`, `api`, `open`: the service, reached by hand. */
function addServiceCommands(program: Command, commands: Commands): void {
  program
    .command('check')
    .description(
      'check the configuration, the login, every route that reads, the clock, the folder, the webhook URL and its signature, and the status page address; changes nothing but with --write (exit 1 when a check fails)',
    )
    .option('--json', 'machine-readable output')
    .option(
      '--write <entity>',
      'on staging: prove every route that writes, with a test document in this company or trust (id or name), deleted again',
    )
    .option('--yes', 'with --write: go on without asking')
    .option('--allow-production', 'with --write: run against production too')
    .option(
      '--save <file>',
      'write every request and answer of the check to this file, secrets removed, for whoever supports the firm',
    )
    .action((_options, command: Command) => commands.check(command.optsWithGlobals()));

  program
    .command('auth')
    .description('authorise docsync with the service')
    .command('login')
    .description('OAuth authorization-code flow: prints the authorise URL and stores the tokens')
    .option('--code <code>', 'exchange a code pasted from the browser instead of listening')
    .action((_options, command: Command) => commands.authLogin(command.optsWithGlobals()));

  program
    .command('api')
    // The list of commands shows the summary; `api --help` shows the description, then the operations.
    .summary('call any operation of the API contract and print JSON (`api --help` lists them)')
    .description(
      'call any operation of the API contract (docs/api-contract.md) and print JSON; the operations are listed below',
    )
    .argument(
      '<resource>',
      'companies, trusts, relationships, documents, attachments, status-types, contacts, unit-transactions, pension-summary',
    )
    .argument('<operation>', 'list, get, create, delete, ... depending on the resource')
    .argument('[args...]', 'ids the operation needs')
    .option('--details', 'ask for details where the operation supports it')
    .option('--file <file>', 'JSON body or attachment file')
    .option('--year <year>', 'financial year (pension summary)')
    .option('--updated-after <time>', 'only documents updated after this UTC time')
    .option('--include-history', 'include ceased trust relationships')
    .addHelpText('after', `\nOperations:\n${usageText()}\n`)
    .action((resource: string, operation: string, args: string[], _options, command: Command) =>
      commands.api({ ...command.optsWithGlobals(), resource, operation, args }),
    );

  program
    .command('open')
    .description('print the deep link to an entity in the service')
    .addArgument(
      new Command().createArgument('<kind>', 'company or trust').choices(['company', 'trust']),
    )
    .argument('<idOrName>', 'id or name of the entity')
    .action((kind: string, idOrName: string, _options, command: Command) =>
      commands.open({ ...command.optsWithGlobals(), kind, idOrName }),
    );
}

/** `simulator` and `demo`: the built-in stand-in for the service. */
function addSimulatorCommands(program: Command, commands: Commands): void {
  program
    .command('simulator')
    .description('run the built-in simulator of the compliance service')
    .addOption(new Option('--port <port>', 'API port').default('4010'))
    .option('--seed <name>', 'seed a firm: "demo", or a number of documents')
    .option('--link-port <port>', 'port of the download-link listener (default: the API port + 1)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .option('--rate-limit <n>', 'requests per second per access token, 0 for none (default 20)')
    .option(
      '--rate-mode <modes>',
      'how the limit is counted: sliding (any one second), calendar (each clock second), bucket (a token bucket), or several joined by commas (default sliding,calendar)',
    )
    .option('--rate-burst <n>', "the bucket's burst in --rate-mode bucket (default 2)")
    .option(
      '--arrival-jitter <ms>',
      'delay each request by up to this many ms, at random, before the limit counts it (default 0)',
    )
    .option('--webhook-url <url>', 'send Document Change webhooks to this URL')
    .option('--webhook-secret <secret>', 'secret that signs the webhooks')
    .option('--client-code <code>', 'client code in the webhook Authorization header')
    .addOption(
      new Option(
        '--profile <profile>',
        "which reading of the service to speak: the API contract's (docs/api-contract.md), or the service's public pages' where they differ",
      )
        .choices(['api', 'public-docs'])
        .default('api'),
    )
    .action((_options, command: Command) => commands.simulator(command.optsWithGlobals()));

  program
    .command('demo')
    .description('start the simulator with a demo firm and sync it into ./demo-documents')
    .action((_options, command: Command) => commands.demo(command.optsWithGlobals()));
}

/** `conflicts`, `trash`, `deletes`: what an operator does when docsync holds something back. */
function addOperatorCommands(program: Command, commands: Commands): void {
  addConflictsCommands(program, commands);
  addTrashCommands(program, commands);
  addDeletesCommands(program, commands);
}

const json = ['--json', 'machine-readable output'] as const;

function addConflictsCommands(program: Command, commands: Commands): void {
  const conflicts = program
    .command('conflicts')
    .description('conflicts both sides made: list, open (where each version is), resolve');
  conflicts
    .command('list', { isDefault: true })
    .description('open conflicts, newest first')
    .option('--all', 'resolved ones too')
    .option(...json)
    .action((_options, command: Command) => commands.conflictsList(command.optsWithGlobals()));
  conflicts
    .command('open')
    .description("where the folder's and the service's versions are")
    .argument('<id>', 'the conflict id (docsync conflicts list)')
    .option(...json)
    .action((id: string, _options, command: Command) =>
      commands.conflictsOpen({ ...command.optsWithGlobals(), id }),
    );
  conflicts
    .command('resolve')
    .description("keep the folder's version, the service's, or both")
    .argument('<id>', 'the conflict id (docsync conflicts list)')
    .addArgument(
      new Command()
        .createArgument('<choice>', 'keep-mine, keep-theirs or keep-both')
        .choices(['keep-mine', 'keep-theirs', 'keep-both']),
    )
    .option(...json)
    .action((id: string, choice: string, _options, command: Command) =>
      commands.conflictsResolve({ ...command.optsWithGlobals(), id, choice }),
    );
}

function addTrashCommands(program: Command, commands: Commands): void {
  const trash = program
    .command('trash')
    .description('what .docsync/trash/ holds, the service copies among it; put an item back');
  trash
    .command('list', { isDefault: true })
    .description('every item, newest day first')
    .option(...json)
    .action((_options, command: Command) => commands.trashList(command.optsWithGlobals()));
  trash
    .command('restore')
    .description('put an item back where sync sees it (never overwrites)')
    .argument('<id>', 'the item as docsync trash list names it')
    .option(...json)
    .action((id: string, _options, command: Command) =>
      commands.trashRestore({ ...command.optsWithGlobals(), id }),
    );
}

function addDeletesCommands(program: Command, commands: Commands): void {
  const deletes = program
    .command('deletes')
    .description('deletes a safety rail holds: list, approve or discard (also beside the daemon)');
  deletes
    .command('list', { isDefault: true })
    .description('the held deletes, oldest first')
    .option(...json)
    .action((_options, command: Command) => commands.deletesList(command.optsWithGlobals()));
  for (const [decision, says] of [
    ['approve', 'let these held deletes through, once'],
    ['discard', 'do not delete: keep both sides whole instead'],
  ] as const) {
    deletes
      .command(decision)
      .description(says)
      .argument('[ids...]', 'document ids (docsync deletes list)')
      .option('--all', 'every held delete')
      .option(...json)
      .action((ids: string[], _options, command: Command) =>
        commands.deletesDecide(decision, { ...command.optsWithGlobals(), ids }),
      );
  }
}

/** Runs the command `argv` names on `terminal`, and returns its exit code (daemon.md). */
export async function main(argv: readonly string[], terminal: Terminal): Promise<number> {
  const { program, exitCode } = buildProgram(terminal);
  try {
    await program.parseAsync(argv as string[]);
    return exitCode();
  } catch (error) {
    // Help, the version, or a usage error commander has already explained.
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof DocsyncError) {
      // Its advice for the configuration it was run with, in the form that runs here.
      const advice = adviceFormHere(terminal, program.opts<GlobalOptions>().config);
      terminal.stderr.write(`docsync: ${inAdviceForm(failureSentence(error), advice)}\n`);
      return error.exitCode;
    }
    const debug = program.opts<{ debug?: boolean }>().debug === true;
    terminal.stderr.write(unexpectedError(error, debug));
    return ExitCode.CouldNotRun;
  }
}

/**
 * An error docsync has no sentence for: one line with what it said, and where it happened only
 * when asked (`--debug`), since a stack trace tells the operator nothing they can act on.
 */
export function unexpectedError(error: unknown, debug: boolean): string {
  const said = error instanceof Error ? error.message : String(error);
  const firstLine = said.split('\n')[0]?.trim() || (error as Error)?.name || 'no message';
  if (debug) {
    const trace = error instanceof Error && error.stack ? error.stack : said;
    return `docsync: unexpected error (a fault in docsync, worth a report): ${firstLine}\n${trace}\n`;
  }
  return `docsync: unexpected error (a fault in docsync, worth a report): ${firstLine}; run the command again with --debug to print where it happened\n`;
}

/**
 * For an error no command awaits (a timer's, an emitter's), which Node would print with its
 * stack: the same one line, then exit 1. `--debug` is read from `argv` as given.
 */
export function exitOnUnexpected(argv: readonly string[]): (error: unknown) => never {
  const debug = argv.includes('--debug');
  return (error) => {
    process.stderr.write(unexpectedError(error, debug));
    process.exit(ExitCode.CouldNotRun);
  };
}
