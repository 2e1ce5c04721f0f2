import { createRequire } from 'node:module';
import type * as commander from 'commander';

/*
 * commander is CommonJS behind an ESM wrapper: imported, Node lexes its files for their named exports on every
 * start; required, it is only compiled. The command line starts a few milliseconds sooner this way.
 */
const loaded = createRequire(import.meta.url)('commander') as typeof commander;
export const { Command, CommanderError, InvalidArgumentError } = loaded;
export type Command = commander.Command;
