#!/usr/bin/env python3
"""List every static-branch site of the abpath hook keys in a vmlinux.

Reads the jump table (x86-64: s32 code, s32 target, s64 key, each relative to
its own field; the key's low two bits are flags) and disassembles the
instruction at each site. With no module registered every key is off and
every site must be a NOP: a 2-byte `xchg %ax,%ax` or a 5-byte `nopl`, i.e.
the stock code falls straight through.

    hook-sites.py VMLINUX     exit 0 if every site is a NOP, 1 otherwise
"""
import re
import struct
import subprocess
import sys


def sections(path):
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
    strtab = hdrs[shstrndx]
    names = data[strtab[4]:strtab[4] + strtab[5]]
    out = {}
    for h in hdrs:
        name = names[h[0]:names.index(b"\0", h[0])].decode()
        out[name] = (h[3], data[h[4]:h[4] + h[5]])  # address, bytes
    return out


def symbols(path):
    syms = {}
    for line in subprocess.run(["nm", path], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    return syms


def insn_at(path, addr):
    out = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", f"--start-address={addr:#x}",
         f"--stop-address={addr + 8:#x}", path],
        capture_output=True, text=True, check=True).stdout
    func = re.findall(r"^[0-9a-f]+ <([^>]+)>:", out, re.M)
    insn = re.findall(rf"^\s*{addr:x}:\s+(.*)$", out, re.M)
    return (func[-1] if func else "?"), (insn[0].strip() if insn else "?")


def main():
    vmlinux = sys.argv[1]
    syms = symbols(vmlinux)
    keys = {a: n for n, a in syms.items() if n.startswith("abpath_key_")}
    if len(keys) != 4:
        print(f"expected 4 abpath_key_* symbols, found {sorted(keys.values())}")
        return 1
    # The table lives inside a data section, between linker symbols.
    start, stop = syms["__start___jump_table"], syms["__stop___jump_table"]
    for base, data in sections(vmlinux).values():
        if base <= start and stop <= base + len(data):
            addr, table = start, data[start - base:stop - base]
            break
    else:
        print("__jump_table not found")
        return 1
    bad = 0
    seen = set()
    for off in range(0, len(table), 16):
        code, target, key = struct.unpack_from("<iiq", table, off)
        entry = addr + off
        key_addr = (entry + 8 + key) & ~3
        if key_addr not in keys:
            continue
        site = entry + code
        func, insn = insn_at(vmlinux, site)
        nop = insn.startswith("xchg   %ax,%ax") or insn.startswith("nop")
        bad += not nop
        seen.add(keys[key_addr])
        print(f"{keys[key_addr]:<28} {func:<40} {site:#x}  {insn}"
              f"{'' if nop else '   <-- NOT A NOP'}")
    missing = set(keys.values()) - seen
    if missing:
        print(f"no site found for {sorted(missing)}")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
