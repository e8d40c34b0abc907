// A DOM record as the core reads it, for tests that look at the collector's JSON: version 4
// writes each element's selector relative to its parent's, and these are the full paths the
// core composes (crates/core/src/dom/selector_paths.rs, whose own tests pin that side). Written
// apart from the core on purpose: the collector's tests check its output against the format as
// documented, not against the code that reads it.

const ENTER = ' >>> ';
const ENTERS = '>>> ';

/** `record` (parsed JSON) with each element's selector replaced by its full path. */
export function withSelectorPaths(record) {
  if (record.version < 4) return record;
  const paths = [];
  const treePrefixes = [];
  const elements = record.elements.map((e, i) => {
    let path;
    let treePrefix;
    if (e.parent === -1) {
      path = e.selector;
      const last = path.lastIndexOf(ENTER);
      treePrefix = last < 0 ? '' : path.slice(0, last + ENTER.length);
    } else if (e.selector.startsWith(ENTERS)) {
      treePrefix = paths[e.parent] + ENTER;
      path = treePrefix + e.selector.slice(ENTERS.length);
    } else if (e.selector.startsWith('#')) {
      treePrefix = treePrefixes[e.parent];
      path = treePrefix + e.selector;
    } else {
      treePrefix = treePrefixes[e.parent];
      path = paths[e.parent] + ' > ' + e.selector;
    }
    paths[i] = path;
    treePrefixes[i] = treePrefix;
    return { ...e, selector: path };
  });
  return { ...record, elements };
}
