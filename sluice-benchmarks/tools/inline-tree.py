#!/usr/bin/env python3
"""C2's inlining trees from a HotSpot compilation log, one per compiled method (its last C2 compile).

    java -XX:+UnlockDiagnosticVMOptions -XX:+LogCompilation -XX:LogFile=/tmp/c.xml ... EngineCost stream 8 60
    sluice-benchmarks/tools/inline-tree.py /tmp/c.xml io.sluice > /tmp/c.txt

Each root line gives the compiled size (nmsize) and the bytecodes inlined; each call below it the
callee (its bytecode size), the profile count and receiver types, and C2's decision ("OK inline
(hot)", "FAIL hot method too big", "FAIL already compiled into a big method", ...). Diff two builds'
trees to see what the JIT did differently (see docs/benchmarks.md, "The engine split").
"""
import html
import re
import sys

ATTR = re.compile(r"(\w+)='([^']*)'")


def attrs(line):
    return dict(ATTR.findall(line))


def short(name):
    return name.split('.')[-1]


def main(path, prefix):
    roots = {}
    task = None
    for line in open(path, errors='replace'):
        if line.startswith('<task '):
            a = attrs(line)
            if a.get('level', '4') != '4':  # C1 tiers carry a level; C2 tasks do not
                task = None
                continue
            task = {'root': html.unescape(a['method']), 'osr': a.get('compile_kind') == 'osr',
                    'out': [], 'nm': None, 'inl': None}
            methods, klasses, depth, pending = {}, {}, 0, None
        elif task is None:
            continue
        elif line.startswith('</task>'):
            roots[(task['root'], task['osr'])] = task
            task = None
        elif line.startswith('<task_done'):
            a = attrs(line)
            task['nm'], task['inl'] = a.get('nmsize'), a.get('inlined_bytes')
        elif line.startswith('<klass '):
            a = attrs(line)
            klasses[a['id']] = a['name']
        elif line.startswith('<method '):
            a = attrs(line)
            methods[a['id']] = (short(klasses.get(a['holder'], '?')) + '::' + a['name'], a.get('bytes'))
        elif line.startswith('<call '):
            a = attrs(line)
            name, size = methods.get(a['method'], ('?', '?'))
            recv = ''
            if 'receiver' in a:
                recv = ' receivers=' + short(klasses.get(a['receiver'], '?')) + ':' + a.get('receiver_count', '')
                if 'receiver2' in a:
                    recv += ',' + short(klasses.get(a['receiver2'], '?')) + ':' + a.get('receiver2_count', '')
            pending = '  ' * depth + '%s (%s) count=%s%s' % (name, size, a.get('count'), recv)
        elif line.startswith('<inline_success') or line.startswith('<inline_fail'):
            if pending:
                verdict = 'OK ' if 'success' in line else 'FAIL '
                task['out'].append(pending + '  -> ' + verdict + html.unescape(attrs(line).get('reason', '')))
                pending = None
        elif line.startswith('<parse '):
            depth += 1
        elif line.startswith('</parse>'):
            depth -= 1
    for (root, osr), t in roots.items():
        if not root.startswith(prefix):
            continue
        print('=== %s%s nmsize=%s inlined_bytes=%s' % (root, ' (OSR)' if osr else '', t['nm'], t['inl']))
        for call in t['out']:
            print('  ' + call)


if __name__ == '__main__':
    if len(sys.argv) not in (2, 3):
        sys.exit('usage: inline-tree.py LOGFILE [CLASS_PREFIX]')
    main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else '')
