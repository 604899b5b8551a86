import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const retrievalCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('retrieval')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'retrieval is not built yet');
        }),
      );
  },
};
