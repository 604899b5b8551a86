;; Counts the double quotes (0x22) of a JSON text that are not escaped, i.e. not preceded by an odd run of
;; backslashes (0x5c). It serves the duplicate-key check of src/io/strict-json.ts, which compares this count with
;; the number of strings in the parsed value. `npm run wasm` assembles this file into quote-count-bytes.ts.
;;
;; Sixteen bytes at a time: when a block holds no two backslashes side by side, every backslash escapes the byte
;; after it, so the escaped positions are the backslash mask shifted by one (plus the first byte when the block
;; before ended with a backslash). Any other block is read byte by byte.
(module
  (memory (export "memory") 1)
  (func (export "countQuotes") (param $ptr i32) (param $len i32) (result i32)
    (local $end i32) (local $stop i32) (local $n i32) (local $esc i32) (local $c i32)
    (local $block v128) (local $backslashes i32) (local $quotes i32)
    (local.set $end (i32.add (local.get $ptr) (local.get $len)))
    (block $done
      (loop $blocks
        (if (i32.le_u (i32.add (local.get $ptr) (i32.const 16)) (local.get $end))
          (then
            (local.set $block (v128.load align=1 (local.get $ptr)))
            (local.set $backslashes
              (i8x16.bitmask (i8x16.eq (local.get $block) (i8x16.splat (i32.const 92)))))
            (local.set $quotes
              (i8x16.bitmask (i8x16.eq (local.get $block) (i8x16.splat (i32.const 34)))))
            (if (i32.eqz (i32.or
                  (i32.and (local.get $backslashes) (i32.shl (local.get $backslashes) (i32.const 1)))
                  (i32.and (local.get $backslashes) (local.get $esc))))
              (then
                (local.set $n (i32.add (local.get $n)
                  (i32.popcnt (i32.and (local.get $quotes)
                    (i32.xor
                      (i32.or (i32.shl (local.get $backslashes) (i32.const 1)) (local.get $esc))
                      (i32.const -1))))))
                (local.set $esc (i32.shr_u (local.get $backslashes) (i32.const 15)))
                (local.set $ptr (i32.add (local.get $ptr) (i32.const 16)))
                (br $blocks)))
            (local.set $stop (i32.add (local.get $ptr) (i32.const 16))))
          (else
            (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))
            (local.set $stop (local.get $end))))
        ;; byte by byte up to $stop (a block with a run of backslashes, or the tail)
        (loop $bytes
          (local.set $c (i32.load8_u (local.get $ptr)))
          (if (local.get $esc)
            (then (local.set $esc (i32.const 0)))
            (else
              (if (i32.eq (local.get $c) (i32.const 92))
                (then (local.set $esc (i32.const 1)))
                (else
                  (if (i32.eq (local.get $c) (i32.const 34))
                    (then (local.set $n (i32.add (local.get $n) (i32.const 1)))))))))
          (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
          (br_if $bytes (i32.lt_u (local.get $ptr) (local.get $stop))))
        (br $blocks)))
    (local.get $n))
)
