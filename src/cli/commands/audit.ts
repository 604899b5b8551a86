import { UsageError } from '../../errors.js';
import type { CommandModule } from '../context.js';

// Placeholder until the command is built.
export const auditCommand: CommandModule = {
  register(program, _io, run) {
    program
      .command('audit')
      .description('(not built yet)')
      .allowUnknownOption()
      .action(() =>
        run(async () => {
          throw new UsageError('not-implemented', 'audit is not built yet');
        }),
      );
  },
};
