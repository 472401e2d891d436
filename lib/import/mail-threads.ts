import type { MemoryInput } from '../memory/types';

/** What one mail says about its place in a conversation. */
export interface MailLinks {
  /** Its Message-ID, or for a mail without one an id made from its content. */
  key: string;
  /** In-Reply-To's ids. */
  inReplyTo: string[];
  /** References' ids, oldest (the thread's root) first. */
  references: string[];
  /** Gmail's thread id (X-GM-THRID): Gmail has threaded the mail already, and its pages name threads by it. */
  gmail?: string;
  date?: number;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface Mail {
  links: MailLinks;
  items: MemoryInput[];
  order: number;
}

/**
 * The threads of the mail of one import. A reply belongs with what it answers, and a patch series or a list
 * archive chains replies (each answering the one before, often with References cut to the last id), in any order
 * in the files: so mails are joined by every id they name (one connected set, one thread) and each gets its thread
 * only once all are read (`settle`). The thread is named by Gmail's thread id where there is one, else by the root
 * the mails point up to; each item gets a distinct place (seq) by its depth in the thread.
 */
export class MailThreads {
  private up = new Map<string, string>();
  private mails = new Map<string, Mail>();
  private added: Mail[] = [];

  private find(key: string): string {
    let root = key;
    for (let next = this.up.get(root); next !== undefined && next !== root; next = this.up.get(root)) root = next;
    // Path compression keeps later look-ups short.
    for (let k = key, next = this.up.get(k); next !== undefined && next !== root; next = this.up.get(k)) {
      this.up.set(k, root);
      k = next;
    }
    return root;
  }

  private join(a: string, b: string): void {
    if (!this.up.has(a)) this.up.set(a, a);
    if (!this.up.has(b)) this.up.set(b, b);
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.up.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  }

  /** Records a mail and the items made of it; their `thread` is set by `settle`. */
  add(links: MailLinks, items: MemoryInput[]): void {
    const key = `id:${links.key}`;
    const mail: Mail = { links, items, order: this.added.length };
    this.added.push(mail);
    if (!this.mails.has(links.key)) this.mails.set(links.key, mail);
    this.join(key, key);
    if (links.gmail) this.join(key, `gm:${links.gmail}`);
    else for (const id of [...links.inReplyTo, ...links.references]) this.join(key, `id:${id}`);
  }

  /**
   * Walks up from a mail (to `step`'s answer) until a mail already known in `memo` or the top, and returns the mails
   * passed, nearest first: iterative, so a chain of thousands of replies costs no deep stack and each mail one visit.
   */
  private climb<T>(mail: Mail, memo: Map<Mail, T>, step: (m: Mail) => Mail | undefined): Mail[] {
    const path: Mail[] = [];
    const seen = new Set<Mail>();
    for (let at: Mail | undefined = mail; at && !memo.has(at) && !seen.has(at); at = step(at)) {
      seen.add(at);
      path.push(at);
    }
    return path;
  }

  /** The id a mail points up to as its thread's root (References' first id, else what it answers), through the mails here. */
  private rootOf(mail: Mail, memo: Map<Mail, string>): string {
    const upId = (m: Mail) => m.links.references[0] ?? m.links.inReplyTo[0];
    const upMail = (m: Mail) => {
      const id = upId(m);
      const parent = id === undefined ? undefined : this.mails.get(id);
      return parent && !parent.links.gmail ? parent : undefined;
    };
    const path = this.climb(mail, memo, upMail);
    const last = path[path.length - 1];
    const beyond = last ? upMail(last) : undefined;
    const root = memo.get(mail) ?? (beyond && memo.has(beyond) ? memo.get(beyond)! : last ? (upId(last) ?? last.links.key) : mail.links.key);
    for (const m of path) memo.set(m, root);
    return root;
  }

  /** How deep a mail sits: one below the mail it answers when that mail is here, else as deep as its References say. */
  private depth(mail: Mail, memo: Map<Mail, number>): number {
    const parentOf = (m: Mail) => {
      const { inReplyTo, references } = m.links;
      const id = inReplyTo[0] ?? references[references.length - 1];
      return id === undefined ? undefined : this.mails.get(id);
    };
    const path = this.climb(mail, memo, parentOf);
    if (!path.length) return memo.get(mail)!;
    const last = path[path.length - 1];
    const beyond = parentOf(last);
    let d = beyond && memo.has(beyond) ? memo.get(beyond)! + 1 : last.links.references.length || (last.links.inReplyTo.length ? 1 : 0);
    for (let i = path.length - 1; i >= 0; i--, d++) memo.set(path[i], d);
    return memo.get(mail)!;
  }

  /** Gives every item recorded its thread: one per set of mails that answer each other. */
  settle(): void {
    const sets = new Map<string, Mail[]>();
    for (const mail of this.added) {
      const set = this.find(`id:${mail.links.key}`);
      let list = sets.get(set);
      if (!list) sets.set(set, (list = []));
      list.push(mail);
    }
    const depths = new Map<Mail, number>();
    const roots = new Map<Mail, string>();
    for (const mails of sets.values()) {
      const id = `mail-thread:${this.threadName(mails, roots)}`;
      const placed = mails
        .map((mail) => ({ mail, depth: this.depth(mail, depths) }))
        .sort((a, b) => a.depth - b.depth || (a.mail.links.date ?? Infinity) - (b.mail.links.date ?? Infinity) || compare(a.mail.links.key, b.mail.links.key) || a.mail.order - b.mail.order);
      const taken = new Set<number>();
      const place = (from: number) => {
        let seq = from;
        while (taken.has(seq)) seq++;
        taken.add(seq);
        return seq;
      };
      // The same mail twice (in two files, or twice in one mbox) is one mail: its copies take the first one's places.
      const copies: { mail: Mail; depth: number }[] = [];
      for (const p of placed) {
        if (this.mails.get(p.mail.links.key) !== p.mail) copies.push(p);
        else p.mail.items.forEach((item, k) => (item.thread = { id, seq: place(p.depth + k) }));
      }
      for (const { mail, depth } of copies) {
        const first = this.mails.get(mail.links.key)!.items;
        mail.items.forEach((item, k) => (item.thread = first[k]?.thread ? { ...first[k].thread! } : { id, seq: place(depth + k) }));
      }
    }
  }

  private threadName(mails: Mail[], roots: Map<Mail, string>): string {
    const gmail = mails.map((m) => m.links.gmail).filter((g): g is string => !!g).sort();
    if (gmail.length) return gmail[0];
    // The root most of the mails point up to (one, unless the set joins threads whose roots are not in the import).
    const votes = new Map<string, number>();
    for (const mail of mails) {
      const root = this.rootOf(mail, roots);
      votes.set(root, (votes.get(root) ?? 0) + 1);
    }
    return [...votes].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))[0][0];
  }
}
