// Marks a worker's start leaves in its performance timeline (relative to the worker's own start), which
// `npm run bench:perf` reads after each cold start: how long until it answers messages, and until memory is in.

/** Every listener is installed: messages and ports are answered from here on. */
export const LISTENING_MARK = 'backstory:listening';
/** Memory is loaded (the index pack or the tables, and the token table): rankings can run. */
export const MEMORY_LOADED_MARK = 'backstory:memory-loaded';
