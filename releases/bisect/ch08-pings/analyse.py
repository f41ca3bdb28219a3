"""Each release's pings' median (µs) per variant and round, from the records bisect.sh wrote."""
import glob, json, statistics, sys

folders = sys.argv[1:] or ["releases/bisect/ch08-pings/runs", "releases/bisect/ch08-pings/boxed-runs"]
by_release = {}
for folder in folders:
    for path in sorted(glob.glob(f"{folder}/*.json")):
        release = path.rsplit("/", 1)[1].rsplit("-r", 1)[0]
        for s in json.load(open(path))["series"]:
            if s["metric"] == "ping_p50":
                by_release.setdefault((folder, release), {}).setdefault(s["variant"], []).extend(
                    round(v / 1e3) for v in s["values"])
for (folder, release), variants in sorted(by_release.items()):
    cells = "; ".join(f"{k} {v} (median {statistics.median(v)})" for k, v in variants.items())
    print(f"{folder.rsplit('/', 1)[-1]:10} {release:13} {cells}")
