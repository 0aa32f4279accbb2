import { runCli } from './index';
import { endWhenStandardOutputFails } from './standard-output';

// The command line's entry: `npm run cli -- …` runs it from its compiled bundle (out/cli/closebook.cjs).
endWhenStandardOutputFails();
void runCli(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
