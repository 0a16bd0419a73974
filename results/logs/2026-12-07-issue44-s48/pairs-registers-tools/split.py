import re,sys
lines=open(sys.argv[1]).read().split('\n')
hdr=lines[:13]
starts=[i for i,l in enumerate(lines) if l.startswith('.visible .entry')]
starts.append(len(lines))
for a,b in zip(starts,starts[1:]):
    name=re.match(r'\.visible \.entry (\w+)',lines[a]).group(1)
    open(name+'.ptx','w').write('\n'.join(hdr+lines[a:b])+'\n')
