#!/usr/bin/env python3
"""CPU time, in clock ticks, of a PostgreSQL cluster and of one server process, for
bench/load/dbcost. Usage: cpu_ticks.py PGDATA SERVER_PID -> "cluster_ticks server_ticks".

The cluster's time is utime+stime of the postmaster and of every live child, plus the
postmaster's cutime+cstime: the time of children already reaped (backends that ended
during the run). Taken before and after a run, the difference is what the cluster spent
in between, whichever backends came and went."""
import os
import sys


def stat_fields(pid):
    with open(f'/proc/{pid}/stat') as f:
        text = f.read()
    # The command name is in parentheses and may hold spaces: split after it.
    return text[text.rindex(')') + 2:].split()


def main():
    data, server = sys.argv[1], int(sys.argv[2])
    with open(os.path.join(data, 'postmaster.pid')) as f:
        postmaster = int(f.readline())
    # Fields after the name, 0-based: 1 ppid, 11 utime, 12 stime, 13 cutime, 14 cstime.
    own = stat_fields(postmaster)
    cluster = sum(int(own[i]) for i in (11, 12, 13, 14))
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            fields = stat_fields(int(entry))
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended meanwhile: the postmaster's cutime has it
        if int(fields[1]) == postmaster:
            cluster += int(fields[11]) + int(fields[12])
    server_fields = stat_fields(server)
    print(cluster, int(server_fields[11]) + int(server_fields[12]))


if __name__ == '__main__':
    main()
