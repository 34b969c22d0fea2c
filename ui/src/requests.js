// Two ways of ordering asynchronous work. Pure (node --test).

/**
 * "Latest request wins": `begin()` starts a request and returns `current()`, true until a newer
 * request begins or `drop()` is called; an answer that arrives when it is false is dropped.
 */
export function latestRequest() {
  let last = 0;
  return {
    begin() {
      const mine = ++last;
      return () => mine === last;
    },
    drop() {
      last += 1;
    },
  };
}

/**
 * One at a time: `run(task)` starts `task()` after every task run before it ended, and resolves
 * or rejects with its result. A failure goes to `onError` too, and never stops the tasks after it.
 */
export function serial(onError) {
  let tail = Promise.resolve();
  return (task) => {
    const done = tail.then(() => task());
    tail = done.catch(onError);
    return done;
  };
}
