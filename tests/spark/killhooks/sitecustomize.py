"""Test-only crash points for the kill tests: with SYNCPOINT_TEST_KILL="<point>:<k>:<counter file>", the k-th time any
Python process of the Spark application (driver, executors' workers, the sink's commit worker) reaches that point,
it SIGKILLs its whole session: the Spark JVM, the driver and every Python worker. The counter file is shared by
the processes (locked), so the k-th passage is counted across them.

Points: read (an executor reading a batch's messages), write (an executor handing the batch to the sink), commit
(inside the sink's unit of work, before MQCMIT), after_commit (after the sink's commit, before Spark writes its
commit checkpoint); with Flow(commit="partition"): commit_partition (inside a partition's unit of work, before its
MQCMIT), after_commit_partition (after it, before the partition's row reaches Spark), handed (Spark has taken the
committed partition's row, the batch is not yet committed in Spark's checkpoint: what "write" is for the sink's
commit; such a flow writes to Spark's noop sink, so "write" is never reached). Nothing here is imported
unless the variable is set.
"""

import os

_spec = os.environ.get("SYNCPOINT_TEST_KILL")
if _spec:
    import fcntl
    import signal

    _point, _k, _counter = _spec.split(":", 2)

    def _kill_session() -> None:
        """SIGKILL every process of this session: the Spark JVM, the driver and every Python worker (pyspark's
        daemon moves its workers to process groups of their own, so a process-group kill is not enough)."""
        sid = os.getsid(0)
        me = os.getpid()
        for name in os.listdir("/proc"):
            if not name.isdigit() or int(name) == me:
                continue
            try:
                with open(f"/proc/{name}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[3]) == sid:
                    os.kill(int(name), signal.SIGKILL)
            except (OSError, ValueError, IndexError):
                pass
        os.kill(me, signal.SIGKILL)

    def _maybe_die(point: str) -> None:
        if point != _point:
            return
        with open(_counter, "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.seek(0)
            n = len(f.read()) + 1
            f.write("x")
            f.flush()
        if n == int(_k):
            _kill_session()

    try:
        from syncpoint.spark import _commit, _flowsink, _source
    except Exception:  # not this application's process
        pass
    else:
        _orig_read = _source._read_tokens

        def _read_tokens(qm, queue, tokens, **kw):  # type: ignore[no-untyped-def]
            n = 0
            for batch in _orig_read(qm, queue, tokens, **kw):  # record batches: die once half the rows are read
                n += batch.num_rows
                if n >= len(tokens) // 2 and n - batch.num_rows < max(1, len(tokens) // 2):
                    _maybe_die("read")
                yield batch

        _source._read_tokens = _read_tokens

        _orig_write = _source.StreamWriter.write

        def _write(self, iterator):  # type: ignore[no-untyped-def]
            msg = _orig_write(self, iterator)
            _maybe_die("write")
            return msg

        _source.StreamWriter.write = _write

        _orig_record = _commit._replace_record

        def _replace_record(*a, **k):  # type: ignore[no-untyped-def]
            _orig_record(*a, **k)
            _maybe_die("commit")

        _commit._replace_record = _replace_record

        _orig_commit_flow = _flowsink.commit_flow_batch

        def _commit_flow_batch(*a, **k):  # type: ignore[no-untyped-def]
            result = _orig_commit_flow(*a, **k)
            _maybe_die("after_commit")
            return result

        _flowsink.commit_flow_batch = _commit_flow_batch

        from syncpoint.spark import _member

        _orig_carry_out = _member._carry_out

        def _carry_out(*a, **k):  # type: ignore[no-untyped-def]
            result = _orig_carry_out(*a, **k)
            _maybe_die("commit_partition")  # a partition's unit of work done, before its MQCMIT
            return result

        _member._carry_out = _carry_out

        _orig_process = _member.process

        def _process(*a, **k):  # type: ignore[no-untyped-def]
            result = _orig_process(*a, **k)
            _maybe_die("after_commit_partition")  # committed, before Spark knows the partition ended
            return result

        _member.process = _process

        _orig_rtp = _member.read_tokens_partition

        def _read_tokens_partition(*a, **k):  # type: ignore[no-untyped-def]
            for row in _orig_rtp(*a, **k):
                yield row
                _maybe_die("handed")  # Spark has taken the committed partition's row: the batch is not committed

        _member.read_tokens_partition = _read_tokens_partition
        _source.__dict__.setdefault("_killhooks", True)
