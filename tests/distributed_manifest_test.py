#!/usr/bin/env python3
"""Checks the Kubernetes example of examples/distributed against the files it depends on: that
job.yaml is an Indexed Job of N pods, each running rateperf with the arguments of the template
shard-args (${NAME} as Kubernetes' $(NAME), each defined in the pod's env; the shard env/N; the
dump on the results volume), and that its image is the one the Containerfile builds, from
Debian 12 with scripts/setup. Prints one line per check; exits 1 if any fails, 77 without
PyYAML."""
import difflib
import os
import re
import sys

try:
    import yaml
except ImportError:
    print("SKIP: no PyYAML for python3 (Debian's python3-yaml)")
    sys.exit(77)

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples",
                        "distributed")
RESULTS = "/results"
# Set by Kubernetes in every pod of an Indexed Job.
INDEX = "JOB_COMPLETION_INDEX"

failures = 0


def check(what, good, detail=""):
    global failures
    print(("ok: " if good else "FAIL: ") + what + ("" if good or not detail else f" ({detail})"))
    failures += 0 if good else 1
    return good


def read(name):
    with open(os.path.join(EXAMPLES, name), encoding="utf-8") as f:
        return f.read()


def template():
    """The arguments of shard-args, read as shard-args.sh reads them."""
    return [line for line in read("shard-args").split("\n") if line and not line.startswith("#")]


def as_kubernetes(arg, shards):
    """A template argument as the Job's args should hold it."""
    fixed = {"SHARD": f"env/{shards}", "DUMP": f"{RESULTS}/shard-$({INDEX}).dump"}
    return re.sub(r"\$\{([A-Z_]+)\}", lambda m: fixed.get(m.group(1), f"$({m.group(1)})"), arg)


def main():
    documents = [d for d in yaml.safe_load_all(read("job.yaml")) if d]
    jobs = [d for d in documents if d.get("kind") == "Job"]
    if not check("job.yaml holds one Job", len(jobs) == 1, f"{len(jobs)} found"):
        return
    job = jobs[0]
    spec = job.get("spec") or {}
    check("apiVersion batch/v1", job.get("apiVersion") == "batch/v1", job.get("apiVersion"))
    check("completionMode Indexed", spec.get("completionMode") == "Indexed",
          spec.get("completionMode"))
    shards = spec.get("completions")
    check("completions equal parallelism (every shard runs at once)",
          isinstance(shards, int) and shards > 0 and spec.get("parallelism") == shards,
          f"completions {shards}, parallelism {spec.get('parallelism')}")
    # A pod run again would start after the common start and be refused.
    check("backoffLimit 0", spec.get("backoffLimit") == 0, spec.get("backoffLimit"))
    pod = (spec.get("template") or {}).get("spec") or {}
    check("restartPolicy Never", pod.get("restartPolicy") == "Never", pod.get("restartPolicy"))

    containers = pod.get("containers") or []
    if not check("one container", len(containers) == 1, f"{len(containers)} found"):
        return
    container = containers[0]
    check('command ["rateperf"]', container.get("command") == ["rateperf"],
          container.get("command"))

    args = container.get("args") or []
    expected = [as_kubernetes(arg, shards) for arg in template()]
    differences = []
    for tag, e1, e2, a1, a2 in difflib.SequenceMatcher(None, expected, args).get_opcodes():
        if tag != "equal":
            differences.append(f"at #{a1} args have {args[a1:a2]} where shard-args gives "
                               f"{expected[e1:e2]}")
    check(f"args are shard-args with $(NAME), --shard env/{shards} and the dump in {RESULTS}",
          not differences, "; ".join(differences))

    env = {e.get("name"): e for e in container.get("env") or []}
    check("env values are strings",
          all(isinstance(e.get("value"), str) for e in env.values() if "value" in e),
          ", ".join(n for n, e in env.items() if "value" in e and not isinstance(e["value"], str)))
    reference = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
    used = sorted({name for arg in args for name in reference.findall(arg)})
    undefined = [name for name in used if name not in env and name != INDEX]
    check(f"every $(NAME) in args is in env ({', '.join(used)})", not undefined,
          "not defined: " + ", ".join(undefined))

    mounts = {m.get("mountPath"): m.get("name") for m in container.get("volumeMounts") or []}
    volume = next((v for v in pod.get("volumes") or [] if v.get("name") == mounts.get(RESULTS)),
                  {})
    claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
    if check(f"a PersistentVolumeClaim is mounted at {RESULTS}", claim is not None,
             f"mounts {sorted(m for m in mounts if m)}"):
        claims = [(d.get("metadata") or {}).get("name") for d in documents
                  if d.get("kind") == "PersistentVolumeClaim"]
        check(f"job.yaml defines the claim {claim}", claim in claims, f"it defines {claims}")

    containerfile = read("Containerfile")
    tags = re.findall(r"^#.*\bbuild\b.*\s-t\s+(\S+)", containerfile, re.M)
    check("the image is the one the Containerfile's build line names",
          len(tags) == 1 and container.get("image") == tags[0],
          f"image {container.get('image')}, Containerfile names {tags}")
    # Instructions with their continued lines joined, comments left out.
    instructions = [line.strip() for line in containerfile.replace("\\\n", " ").split("\n")
                    if line.strip() and not line.lstrip().startswith("#")]
    bases = [line.split()[1] for line in instructions if line.upper().startswith("FROM ")]
    check("the Containerfile starts FROM debian:12, every stage",
          bool(instructions) and instructions[0].upper().startswith("FROM ")
          and bases and all(b == "debian:12" for b in bases), f"FROM {bases}")
    runs = [line for line in instructions if line.upper().startswith("RUN ")]
    check("the Containerfile builds the Debian package with scripts/setup and dpkg-buildpackage",
          any("scripts/setup" in r and "dpkg-buildpackage" in r for r in runs), "; ".join(runs))
    check("the Containerfile installs the package it built",
          any("apt-get install" in r and "rateperf_*.deb" in r for r in runs), "; ".join(runs))


main()
sys.exit(1 if failures else 0)
