/**
 * A process-wide patch that several live transports share: installed by the first hold, undone after
 * the last release. The guards of @mswjs/interceptors (dispose-guard.ts, network-errors.ts) and the
 * client-method support (client-methods.ts) are held this way.
 */

/** A patch held by reference count. */
export interface RefCounted {
  /** Takes a hold (installing the patch if none was held); returns its release, harmless twice. */
  hold(): () => void;
  /** Whether the patch is installed right now. */
  installed(): boolean;
}

/**
 * A patch installed by `install` (which returns its undo) on the first hold and undone after the
 * last release.
 * @example
 * const guard = refCounted(() => { patch(); return () => unpatch(); });
 * const release = guard.hold(); // patched
 * release();                    // unpatched (no other hold)
 */
export function refCounted(install: () => () => void): RefCounted {
  let holders = 0;
  let undo: (() => void) | undefined;
  return {
    hold() {
      holders++;
      undo ??= install();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        holders--;
        if (holders === 0) {
          undo?.();
          undo = undefined;
        }
      };
    },
    installed: () => undo !== undefined,
  };
}
