import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const migrateCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('migrate')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'migrate is not built yet');
        }),
      );
  },
};
