import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const hashCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('hash')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'hash is not built yet');
        }),
      );
  },
};
