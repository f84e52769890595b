"""What an MPI header declares, read through the C compiler.

Each function here runs the compiler on a one-line translation unit that includes <mpi.h> from
a given directory, and returns what the header (or only the files under that directory, not the
system headers they pull in) defines: object-like macros, typedef names, struct fields,
enumerators, extern variables and function prototypes.
"""

import os
import re
import shutil
import subprocess

IDENT = re.compile(r"[A-Za-z_]\w*")


class CompileError(Exception):
    pass


def run(cmd, **kwargs):
    """Runs cmd and returns its stdout; raises CompileError with the tool's stderr on failure."""
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        raise CompileError("command failed (%d): %s\n%s%s" %
                           (proc.returncode, " ".join(cmd), proc.stdout, proc.stderr))
    return proc.stdout


class Header:
    """The mpi.h found in include_dir, as seen by the C compiler cc."""

    def __init__(self, cc, include_dir, workdir, extra_headers=()):
        self.cc = cc
        self.include_dir = os.path.realpath(include_dir)
        self.workdir = workdir
        self.unit = os.path.join(workdir, "unit_%s.c" % _slug(self.include_dir))
        lines = ["#include <mpi.h>"] + ["#include <%s>" % h for h in extra_headers]
        with open(self.unit, "w") as f:
            f.write("\n".join(lines) + "\n")

    def _flags(self):
        return ["-I", self.include_dir, "-DMPICH_SKIP_MPICXX"]

    def macros(self):
        """Object-like MPI_/MPIX_ macros: name -> replacement text ('' when empty)."""
        out = run([self.cc, "-E", "-dM"] + self._flags() + [self.unit])
        found = {}
        for line in out.splitlines():
            m = re.match(r"#define (MPIX?_\w+)(?:\s+(.*))?$", line)
            if m:
                found[m.group(1)] = (m.group(2) or "").strip()
        return found

    def own_text(self, only_file=None):
        """Preprocessed text that comes from files under include_dir (or from only_file)."""
        out = run([self.cc, "-E"] + self._flags() + [self.unit])
        keep, chunks = False, []
        for line in out.splitlines():
            m = re.match(r'# \d+ "([^"]+)"', line)
            if m:
                path = os.path.realpath(m.group(1)) if os.path.exists(m.group(1)) else ""
                keep = path.startswith(self.include_dir + os.sep)
                if only_file and keep:
                    keep = os.path.basename(path) == only_file
                continue
            if keep:
                chunks.append(line)
        return strip_attributes("\n".join(chunks))

    def declarations(self, only_file=None):
        """Parses own_text() into a Declarations."""
        return Declarations(split_statements(self.own_text(only_file)))

    def prototypes(self):
        """Functions declared under include_dir: name -> prototype as GCC prints it."""
        aux = os.path.join(self.workdir, "aux_%s.txt" % _slug(self.include_dir))
        run([self.cc, "-fsyntax-only", "-aux-info", aux] + self._flags() + [self.unit])
        found = {}
        with open(aux) as f:
            for line in f:
                m = re.match(r"/\* (\S+):\d+:\w+ \*/ extern (.*?)\b(\w+) \((.*)\);$", line)
                if m and os.path.realpath(m.group(1)).startswith(self.include_dir + os.sep):
                    found[m.group(3)] = "%s(%s)" % (m.group(2).strip(), m.group(4))
        return found


class Declarations:
    """Typedefs, struct fields, enumerators and extern variables in a list of statements."""

    def __init__(self, statements):
        self.typedefs = []
        self.fields = {}
        self.enumerators = []
        self.variables = []
        for stmt in statements:
            self._add(stmt)

    def _add(self, stmt):
        for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", stmt):
            for item in body.split(","):
                m = IDENT.match(item.strip())
                if m:
                    self.enumerators.append(m.group(0))
        if stmt.startswith("typedef"):
            name = typedef_name(stmt)
            self.typedefs.append(name)
            m = re.search(r"\bstruct\b[^{]*\{(.*)\}", stmt, re.S)
            if m:
                self.fields[name] = [_last_ident(member) for member in m.group(1).split(";")
                                     if member.strip()]
        elif stmt.startswith("extern") and "(" not in stmt:
            self.variables.append(_last_ident(re.sub(r"\[[^]]*\]", "", stmt)))


def typedef_name(stmt):
    """The name a typedef statement declares, also for function types: typedef int (F)(...)."""
    head = re.sub(r"\{.*\}", " ", stmt, flags=re.S)
    m = re.search(r"\(\s*\*?\s*([A-Za-z_]\w*)\s*\)\s*\(", head)
    return m.group(1) if m else _last_ident(head)


def strip_attributes(text):
    """Removes every __attribute__((...)) with balanced parentheses."""
    out, i = [], 0
    while True:
        j = text.find("__attribute__", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k = text.index("(", j)
        depth = 0
        while True:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
            if depth == 0:
                break
        i = k


def split_statements(text):
    """Splits C text at top-level semicolons; returns whitespace-normalised statements."""
    stmts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif ch == ";" and depth == 0:
            stmts.append(" ".join(text[start:i].split()))
            start = i + 1
    tail = " ".join(text[start:].split())
    if tail:
        stmts.append(tail)
    return [s for s in stmts if s]


def _last_ident(text):
    names = IDENT.findall(text)
    return names[-1] if names else ""


def _slug(path):
    return re.sub(r"\W", "_", path).strip("_")[-60:]


def scratch_dir(parent, name):
    """An empty directory parent/name for generated sources and binaries."""
    path = os.path.join(os.path.abspath(parent), name)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path
