/**
 * Requests to a dedicated Worker that answers each `{ id }` with a reply of the same id, or `{ id, error }`. A Worker
 * that reports an error fails every request still waiting, so none waits forever; one terminated fails every later one.
 */
export class WorkerChannel<Req extends { id: number }, Rep extends { id: number }> {
  private waiting = new Map<number, (r: Rep | { id: number; error: string }) => void>();
  private next = 0;
  private dead?: string;

  constructor(private readonly worker: Worker) {
    worker.onmessage = (e: MessageEvent<Rep>) => {
      this.waiting.get(e.data.id)?.(e.data);
      this.waiting.delete(e.data.id);
    };
    // An uncaught error in the Worker need not end it: what waits fails, later requests are tried.
    worker.onerror = (e) => this.fail(`embedding engine failed: ${e.message}`);
  }

  async call(request: (id: number) => Req, transfer: Transferable[] = []): Promise<Exclude<Rep, { error: string }>> {
    if (this.dead) throw new Error(this.dead);
    const id = this.next++;
    const r = await new Promise<Rep | { id: number; error: string }>((done) => {
      this.waiting.set(id, done);
      this.worker.postMessage(request(id), transfer);
    });
    if ('error' in r && typeof r.error === 'string') throw new Error(r.error);
    return r as Exclude<Rep, { error: string }>;
  }

  /** Ends the Worker; what still waits fails with `why`. */
  terminate(why = 'the engine was stopped'): void {
    this.worker.terminate();
    this.dead ??= why;
    this.fail(why);
  }

  private fail(why: string): void {
    for (const done of this.waiting.values()) done({ id: -1, error: why });
    this.waiting.clear();
  }
}
