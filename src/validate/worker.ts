/** Worker thread for `--jobs N`: runs the tasks it is sent (task.ts) and posts back their replies. */
import { parentPort } from 'node:worker_threads';
import { runTask, type WorkerReply, type WorkerTask } from './task.js';

const post = (reply: WorkerReply): void => parentPort!.postMessage(reply);

parentPort!.on('message', (task: WorkerTask) => {
  void runTask(task, post).then(post);
});
