import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const retestCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('retest')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'retest is not built yet');
        }),
      );
  },
};
