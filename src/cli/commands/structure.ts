import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const structureCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('structure')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'structure is not built yet');
        }),
      );
  },
};
