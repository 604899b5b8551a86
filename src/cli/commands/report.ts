import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const reportCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('report')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'report is not built yet');
        }),
      );
  },
};
