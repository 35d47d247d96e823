// The built entry of `breakwater statusline` (out/main/statusline.js): bin/breakwater.js runs it
// instead of the whole CLI, so the command starts without loading the engine.
import { runStatusline } from './cli-statusline';

const args = process.argv.slice(2);
void runStatusline(args[0] === 'statusline' ? args.slice(1) : args);
