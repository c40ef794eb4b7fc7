;; The hot loop of the ART trace summary (summary.ts `ArtTraceSummarizer`): per-method
;; inclusive/exclusive times the way dmtracedump computes them. WebAssembly because the same loop in
;; JavaScript stayed at ≈ 9× a plain read of the file (docs/benchmarks.md, issue 29).
;;
;; Built into `_summary-kernel-wasm.ts` by `npm run build:art-wasm` (bin/build-art-summary-kernel.js,
;; wabt's wat2wasm); a test checks that the committed bytes are this file's.
;;
;; `run` reads one record layout only, 14 bytes: u16 thread id, u32 method id | action, u32
;; thread-cpu µs, u32 wall µs (version 3, clock=dual, what ART writes by default). Other layouts
;; are rewritten into it first by `canonicalize`, a missing clock as 0. Fewer values to keep in
;; registers is what makes this loop fast: V8 spilled most of them when the layout was a parameter.
;; Both clocks go through the same SIMD lanes, and enter/exit take no branch (the bench's calls are
;; random, so a branch there mispredicted half the time). Times are integer µs in i64: exact, so
;; the figures equal those of the JavaScript loop this replaced, which summed them as doubles
;; below 2^53 (test/formats/art-trace/summary-kernel.test.ts).
;;
;; Memory, shared (growing it detaches no view: a decoder may be reading a chunk in it), laid out
;; by summary.ts (its constants of the same names):
;; - CTRL, bytes 0..47 (i32 unless said): 0 status (out), 4 stop at tid 0 (1/0), 8 hash keys
;;   address, 12 hash slots address, 16 hash mask, 20 per-method accumulators address,
;;   32 i64 clock values clamped so far (in/out);
;; - THREAD_TABLE = 1024, an i32 per tid (65536): its descriptor address; 0 = not seen yet,
;;   -1 = filtered out;
;; - DIRECT = 263168, an i32 per method id >> 2 below 2^22 (4 MiB; pages never touched cost no
;;   memory): slot + 1, 0 = no slot yet; larger ids are in the hash table (keys = ids, slots);
;; - RAW (1 MiB), records as read, for `canonicalize`; INPUT (2 MiB), records for `run`; READ
;;   (1 MiB), `readBuffer`, where a caller reads the file (`run` then reads the records there);
;;   the heap after them (descriptors, stacks, tables).
;; Per-method accumulators, 48 bytes per slot, i64: calls, 8 unused, inclusive cpu at 16,
;; inclusive wall at 24, exclusive cpu at 32, exclusive wall at 40 (µs); the 48 bytes before slot 0
;; sum what goes to no method (a thread's time before its first enter), so that an enter needs no
;; test for an empty stack.
;; A thread descriptor (64 bytes): 0 top frame address, 4 frames base, 8 last frame slot address,
;; 12 on-stack counts address (i32 per slot: frames of that method on the stack; room for every
;; slot, summary.ts grows them all), 16 last raw cpu, 20 last raw wall (u32, an i32x4 with two zero
;; lanes), then i64: 32 cpu wrap offset, 40 wall wrap offset, 48 last cpu, 56 last wall (µs,
;; unwrapped and clamped).
;; A frame (32 bytes): i32 slot << 1 | 1 when a frame below holds the same method, i64 entry cpu at
;; 16, i64 entry wall at 24. The frame at the base is a sentinel, -2: slot -1, the no-method sums.
(module
  (memory (export "memory") 133 65536 shared)

  ;; Why `run` returned (CTRL byte 0). It stops before a record it cannot finish, with nothing of
  ;; that record applied (but for 6, which is fatal), so summary.ts can add what is missing and call
  ;; it again from there.
  ;; 0 the end; 1 a tid-0 control packet (when CTRL 4 says so); 2 action bits 3; 3 a thread not
  ;; seen yet; 4 a method without a slot; 5 the stack needs more room; 6 an exit that does not
  ;; match the top of the stack.

  ;; Consumes the 14-byte records of [p, end); returns where it stopped.
  (func (export "run") (param $p i32) (param $end i32) (result i32)
    (local $acc i32) (local $curTid i32) (local $cur i32) (local $sp i32) (local $limit i32)
    (local $onStack i32)
    ;; Per lane: thread-cpu, wall. Raw values as i32x4 (lanes 2, 3 zero), the others as i64x2.
    (local $prevRaw v128) (local $offset v128) (local $last v128)
    (local $raw v128) (local $now v128) (local $mask v128)
    (local $status i32) (local $t i32) (local $v i32) (local $action i32) (local $m i32)
    (local $d i32) (local $id i32) (local $h i32) (local $s i32) (local $hashMask i32)
    (local $exit i32) (local $frame i32) (local $a i32) (local $seen i32)

    (local.set $acc (i32.load (i32.const 20)))
    ;; No thread loaded: the first record loads its thread.
    (local.set $curTid (i32.const -1))

    (block $done
      (loop $records
        (if (i32.ge_u (local.get $p) (local.get $end))
          (then
            (local.set $status (i32.const 0))
            (br $done)))
        (local.set $t (i32.load16_u (local.get $p)))
        (local.set $v (i32.load offset=2 align=2 (local.get $p)))
        (local.set $action (i32.and (local.get $v) (i32.const 3)))

        (if (i32.ne (local.get $t) (local.get $curTid))
          (then
            ;; Streaming: tid 0 starts a control packet (never a thread there, so this test is
            ;; needed only when the thread changes).
            (if (i32.and (i32.eqz (local.get $t)) (i32.load (i32.const 4)))
              (then
                (local.set $status (i32.const 1))
                (br $done)))
            (if (i32.eq (local.get $action) (i32.const 3))
              (then
                (local.set $status (i32.const 2))
                (br $done)))
            (if (local.get $cur)
              (then
                (i32.store (local.get $cur) (local.get $sp))
                (v128.store offset=16 (local.get $cur) (local.get $prevRaw))
                (v128.store offset=32 (local.get $cur) (local.get $offset))
                (v128.store offset=48 (local.get $cur) (local.get $last))))
            (local.set $cur (i32.const 0))
            (local.set $curTid (i32.const -1))
            (local.set $d (i32.load offset=1024 (i32.shl (local.get $t) (i32.const 2))))
            (if (i32.eqz (local.get $d))
              (then
                (local.set $status (i32.const 3))
                (br $done)))
            ;; Filtered out: skip the record.
            (if (i32.eq (local.get $d) (i32.const -1))
              (then
                (local.set $p (i32.add (local.get $p) (i32.const 14)))
                (br $records)))
            (local.set $cur (local.get $d))
            (local.set $curTid (local.get $t))
            (local.set $sp (i32.load (local.get $cur)))
            (local.set $limit (i32.load offset=8 (local.get $cur)))
            (local.set $onStack (i32.load offset=12 (local.get $cur)))
            (local.set $prevRaw (v128.load offset=16 (local.get $cur)))
            (local.set $offset (v128.load offset=32 (local.get $cur)))
            (local.set $last (v128.load offset=48 (local.get $cur))))
          (else
            (if (i32.eq (local.get $action) (i32.const 3))
              (then
                (local.set $status (i32.const 2))
                (br $done)))))

        ;; Method slot: the direct table for small ids (ART: index << 2), the hash table for the
        ;; rest (negative as i32 included).
        (if (i32.lt_u (local.get $v) (i32.const 0x400000))
          (then
            (local.set $m
              (i32.sub
                (i32.load offset=263168 (i32.and (local.get $v) (i32.const -4)))
                (i32.const 1))))
          (else
            (local.set $m (i32.const -1))
            (local.set $id (i32.sub (local.get $v) (local.get $action)))
            (local.set $hashMask (i32.load (i32.const 16)))
            (local.set $h
              (i32.and
                (i32.mul (i32.shr_u (local.get $id) (i32.const 2)) (i32.const 0x9e3779b1))
                (local.get $hashMask)))
            (block $found
              (loop $probe
                (local.set $s
                  (i32.load
                    (i32.add (i32.load (i32.const 12)) (i32.shl (local.get $h) (i32.const 2)))))
                (br_if $found (i32.lt_s (local.get $s) (i32.const 0)))
                (if (i32.eq
                      (i32.load
                        (i32.add (i32.load (i32.const 8)) (i32.shl (local.get $h) (i32.const 2))))
                      (local.get $id))
                  (then
                    (local.set $m (local.get $s))
                    (br $found)))
                (local.set $h
                  (i32.and (i32.add (local.get $h) (i32.const 1)) (local.get $hashMask)))
                (br $probe)))))
        (if (i32.lt_s (local.get $m) (i32.const 0))
          (then
            (local.set $status (i32.const 4))
            (br $done)))
        ;; Every record writes a frame above the top (an exit's is left unused).
        (if (i32.ge_u (local.get $sp) (local.get $limit))
          (then
            (local.set $status (i32.const 5))
            (br $done)))
        (local.set $exit (i32.ne (local.get $action) (i32.const 0)))
        (local.set $frame (i32.load (local.get $sp)))

        ;; Both clocks at once, unwrapped and made monotonic per thread. Either (a 32-bit wrap or
        ;; a step back) leaves the time below the last one, so the common case needs one test.
        (local.set $raw (v128.load64_zero offset=6 align=2 (local.get $p)))
        (local.set $now (i64x2.add (i64x2.extend_low_i32x4_u (local.get $raw)) (local.get $offset)))
        (if (v128.any_true (i64x2.lt_s (local.get $now) (local.get $last)))
          (then
            ;; A step back of more than half the range of the raw µs counter is a wrap...
            (local.set $mask
              (v128.and
                (i32x4.lt_u (local.get $raw) (local.get $prevRaw))
                (i32x4.gt_u
                  (i32x4.sub (local.get $prevRaw) (local.get $raw))
                  (i32x4.splat (i32.const 0x80000000)))))
            (local.set $offset
              (i64x2.add
                (local.get $offset)
                (v128.and
                  (i64x2.extend_low_i32x4_s (local.get $mask))
                  (i64x2.splat (i64.const 4294967296)))))
            (local.set $now
              (i64x2.add (i64x2.extend_low_i32x4_u (local.get $raw)) (local.get $offset)))
            ;; ...a smaller one is clamped, and counted (a lane of the mask is -1 when set).
            (local.set $mask (i64x2.lt_s (local.get $now) (local.get $last)))
            (i64.store (i32.const 32)
              (i64.sub
                (i64.sub (i64.load (i32.const 32)) (i64x2.extract_lane 0 (local.get $mask)))
                (i64x2.extract_lane 1 (local.get $mask))))
            (local.set $now (v128.bitselect (local.get $last) (local.get $now) (local.get $mask)))))
        (local.set $prevRaw (local.get $raw))

        ;; An exit whose method is not on top: the stack is empty (a call open when tracing
        ;; started) or the trace is broken. One test, without a branch on enter/exit.
        (if (i32.and
              (i32.xor (i32.shr_s (local.get $frame) (i32.const 1)) (local.get $m))
              (i32.sub (i32.const 0) (local.get $exit)))
          (then
            (if (i32.ne (local.get $frame) (i32.const -2))
              (then
                (local.set $status (i32.const 6))
                (br $done)))
            ;; Empty: its own time, and its inclusive time from 0; nothing to pop.
            (local.set $a (i32.add (local.get $acc) (i32.mul (local.get $m) (i32.const 48))))
            (v128.store offset=32 (local.get $a)
              (i64x2.add
                (v128.load offset=32 (local.get $a))
                (i64x2.sub (local.get $now) (local.get $last))))
            (v128.store offset=16 (local.get $a)
              (i64x2.add (v128.load offset=16 (local.get $a)) (local.get $now)))
            (i64.store (local.get $a) (i64.add (i64.load (local.get $a)) (i64.const 1))))
          (else
            ;; Enter or exit, without a branch on which (it is as random as the calls):
            ;; - the time since the thread's last event goes to the method on top (the caller
            ;;   for an enter, the exiting method for an exit);
            (local.set $a
              (i32.add
                (local.get $acc)
                (i32.mul (i32.shr_s (local.get $frame) (i32.const 1)) (i32.const 48))))
            (v128.store offset=32 (local.get $a)
              (i64x2.add
                (v128.load offset=32 (local.get $a))
                (i64x2.sub (local.get $now) (local.get $last))))
            ;; - an exit adds a call, and its inclusive time unless a frame below holds the same
            ;;   method (recursion counts once); an enter adds 0 to both;
            (v128.store offset=16 (local.get $a)
              (i64x2.add
                (v128.load offset=16 (local.get $a))
                (v128.and
                  (i64x2.sub (local.get $now) (v128.load offset=16 (local.get $sp)))
                  (i64x2.splat
                    (i64.extend_i32_s
                      (i32.sub
                        (i32.const 0)
                        (i32.and
                          (local.get $exit)
                          (i32.eqz (i32.and (local.get $frame) (i32.const 1))))))))))
            (i64.store (local.get $a)
              (i64.add (i64.load (local.get $a)) (i64.extend_i32_u (local.get $exit))))
            ;; - the method's count of frames on the stack, one up or down;
            (local.set $a (i32.add (local.get $onStack) (i32.shl (local.get $m) (i32.const 2))))
            (local.set $seen (i32.load (local.get $a)))
            (i32.store (local.get $a)
              (i32.sub
                (i32.add (local.get $seen) (i32.const 1))
                (i32.shl (local.get $exit) (i32.const 1))))
            ;; - an enter's frame above the top, then the top one up (enter) or down (exit).
            (i32.store offset=32 (local.get $sp)
              (i32.or (i32.shl (local.get $m) (i32.const 1)) (i32.ne (local.get $seen) (i32.const 0))))
            (v128.store offset=48 (local.get $sp) (local.get $now))
            (local.set $sp
              (i32.sub
                (i32.add (local.get $sp) (i32.const 32))
                (i32.shl (local.get $exit) (i32.const 6))))))
        (local.set $last (local.get $now))
        (local.set $p (i32.add (local.get $p) (i32.const 14)))
        (br $records)))

    (if (local.get $cur)
      (then
        (i32.store (local.get $cur) (local.get $sp))
        (v128.store offset=16 (local.get $cur) (local.get $prevRaw))
        (v128.store offset=32 (local.get $cur) (local.get $offset))
        (v128.store offset=48 (local.get $cur) (local.get $last))))
    (i32.store (i32.const 0) (local.get $status))
    (local.get $p))


  ;; Rewrites `count` records of `size` bytes at `from`, laid out as `layout` (ArtRecordLayout:
  ;; 0 v1 wall, 1 v1 thread-cpu, 2 dual, 3 thread-cpu, 4 wall), as `run`'s 14-byte records at `to`.
  (func (export "canonicalize")
    (param $from i32) (param $to i32) (param $count i32) (param $size i32) (param $layout i32)
    (local $end i32) (local $t i32) (local $v i32) (local $time i32) (local $wall i32)
    (local.set $end (i32.add (local.get $to) (i32.mul (local.get $count) (i32.const 14))))
    (block $done
      (loop $records
        (br_if $done (i32.ge_u (local.get $to) (local.get $end)))
        (if (i32.le_u (local.get $layout) (i32.const 1))
          (then
            ;; Version 1: a 1-byte thread id.
            (local.set $t (i32.load8_u (local.get $from)))
            (local.set $v (i32.load offset=1 align=1 (local.get $from)))
            (local.set $time (i32.load offset=5 align=1 (local.get $from))))
          (else
            (local.set $t (i32.load16_u align=1 (local.get $from)))
            (local.set $v (i32.load offset=2 align=1 (local.get $from)))
            (local.set $time (i32.load offset=6 align=1 (local.get $from)))))
        (local.set $wall (i32.const 0))
        (if (i32.eq (local.get $layout) (i32.const 2))
          (then (local.set $wall (i32.load offset=10 align=1 (local.get $from)))))
        (if (i32.or (i32.eqz (local.get $layout)) (i32.eq (local.get $layout) (i32.const 4)))
          (then
            (local.set $wall (local.get $time))
            (local.set $time (i32.const 0))))
        (i32.store16 (local.get $to) (local.get $t))
        (i32.store offset=2 align=2 (local.get $to) (local.get $v))
        (i32.store offset=6 align=2 (local.get $to) (local.get $time))
        (i32.store offset=10 align=2 (local.get $to) (local.get $wall))
        (local.set $from (i32.add (local.get $from) (local.get $size)))
        (local.set $to (i32.add (local.get $to) (i32.const 14)))
        (br $records)))))
