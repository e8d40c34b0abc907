// A DOM record as the core reads it, for tests that look at the collector's JSON. Version 4
// writes each element's selector relative to its parent's and leaves out `text` and `image` when
// there are none and `masked` when false; read, every element has its full selector path
// (crates/core/src/dom/selector_paths.rs, whose own tests pin that side) and all three fields.
// Written apart from the core on purpose: the collector's tests check its output against the
// format as documented, not against the code that reads it.

const ENTER = ' >>> ';
const ENTERS = '>>> ';

/** `record` (parsed JSON) as the core reads it. */
export function asRead(record) {
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
    return { text: null, image: null, masked: false, ...e, selector: path };
  });
  return { ...record, elements };
}
