import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const schemaCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('schema')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'schema is not built yet');
        }),
      );
  },
};
