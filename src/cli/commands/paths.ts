import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const pathsCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('paths')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'paths is not built yet');
        }),
      );
  },
};
