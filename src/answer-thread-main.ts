/**
 * The answer thread's entry: a replica starts it as a worker thread (redis-bot.ts, ANSWER_THREAD=on) and hands it
 * the replica's configuration; it builds answers for the thread that acks Slack's requests.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type AnswerThreadData, runAnswerThread } from './redis-bot.js';

if (!parentPort) throw new Error('answer-thread-main runs as a worker thread of a replica');
runAnswerThread(parentPort, workerData as AnswerThreadData);
