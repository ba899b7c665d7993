/**
 * A seam at a port: the same object, with `act` run once, just before the first call of
 * `method` (a person's edit at that moment of a sync: while a listing or a details request is
 * under way, before a write). The port is the real one; only the moment is the test's.
 */
export function onceBefore<T extends object>(
  target: T,
  method: keyof T,
  act: () => void,
): T & { readonly fired: () => boolean } {
  let fired = false;
  return new Proxy(target, {
    get(object, prop) {
      if (prop === 'fired') return () => fired;
      const value = Reflect.get(object, prop, object) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== method) return value.bind(object);
      return (...args: unknown[]) => {
        if (!fired) {
          fired = true;
          act();
        }
        return value.apply(object, args);
      };
    },
  }) as T & { readonly fired: () => boolean };
}
