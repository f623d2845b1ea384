#!/usr/bin/env python3
"""Lists pairs of source files that import each other, resolving `use`
paths to the files that define them, and fails (exit 1) when two files
that are not parent and child do: the dependency between two parts of the
tree should run one way. A module and its own child may (the child's
`impl` blocks extend the parent's type, the parent re-exports the child).

Usage: python3 scripts/module_circles.py [ROOT ...]   (default: src cli/src)
"""
import pathlib, re, sys
roots = [pathlib.Path(r) for r in (sys.argv[1:] or ['src', 'cli/src'])]
def modpath(root, f):
    parts = list(f.relative_to(root).with_suffix('').parts)
    if parts[-1] in ('mod', 'lib', 'main'): parts = parts[:-1]
    return tuple(parts)
files = {}
for root in roots:
    for f in root.rglob('*.rs'):
        files[(root, modpath(root, f))] = f
def expand(body):
    # a::{b, c::{d, e}} -> [a::b, a::c::d, a::c::e] (one or two levels)
    m = re.match(r'^(.*?)\{(.*)\}$', body, re.S)
    if not m: return [body]
    pre, inner = m.group(1), m.group(2)
    out, depth, cur = [], 0, ''
    for ch in inner:
        if ch == ',' and depth == 0: out.append(cur); cur = ''; continue
        depth += ch == '{'; depth -= ch == '}'; cur += ch
    out.append(cur)
    res = []
    for o in out:
        o = o.strip()
        if o: res += expand(pre + o)
    return res
deps = {}
for (root, mp), f in files.items():
    s = f.read_text()
    s = re.sub(r'#\[cfg\(test\)\]\s*mod tests\s*\{.*', '', s, flags=re.S)  # inline tests use their parent
    d = set()
    for m in re.finditer(r'^\s*(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);', s, re.M):
        for path in expand(re.sub(r'\s+', '', m.group(1))):
            segs = path.split('::')
            if segs[0] == 'crate': base = []; segs = segs[1:]
            elif segs[0] == 'super':
                base = list(mp)
                # a non-mod file's module is mp; super is its parent
                while segs and segs[0] == 'super': base = base[:-1]; segs = segs[1:]
            elif segs[0] == 'self': base = list(mp); segs = segs[1:]
            elif (root, mp + (segs[0],)) in files: base = list(mp)
            else: continue
            best = None
            for k in range(len(segs), -1, -1):
                key = (root, tuple(base + segs[:k]))
                if key in files: best = key; break
            if best and best != (root, mp): d.add(best)
    deps[(root, mp)] = d
seen, bad = set(), 0
for a, ds in deps.items():
    for b in ds:
        if a in deps.get(b, ()) and (b, a) not in seen:
            seen.add((a, b))
            (ra, ma), (rb, mb) = a, b
            nested = ma == mb[: len(ma)] or mb == ma[: len(mb)]
            if not nested:
                bad += 1
                print(f'{files[a]} <-> {files[b]}: each uses the other')
sys.exit(1 if bad else 0)
