import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const evaluateCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('evaluate')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'evaluate is not built yet');
        }),
      );
  },
};
