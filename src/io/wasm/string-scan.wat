;; Scans the JSON string tokens of a text for the row-shape fast path of validation
;; (src/validate/shape/row-shape.ts): `stringEnd` reads one string's content and checks its escapes; `$nextSpecial`
;; finds the next byte that ends a run of plain content: a double quote (0x22), a backslash (0x5c) or a control
;; character (below 0x20, never allowed raw inside a string). `npm run wasm` assembles this file into
;; string-scan-bytes.ts; src/io/string-scan.ts holds the same in JavaScript, which the tests compare it with.
;;
;; Sixteen bytes at a time: one mask of the three tests, its lowest set bit is the answer; the tail byte by byte.
(module
  (memory (export "memory") 1)

  (func $nextSpecial (param $ptr i32) (param $end i32) (result i32)
    (local $block v128) (local $mask i32) (local $c i32)
    (block $tail
      (loop $blocks
        (br_if $tail (i32.gt_u (i32.add (local.get $ptr) (i32.const 16)) (local.get $end)))
        (local.set $block (v128.load align=1 (local.get $ptr)))
        (local.set $mask (i8x16.bitmask (v128.or
          (v128.or
            (i8x16.eq (local.get $block) (i8x16.splat (i32.const 34)))
            (i8x16.eq (local.get $block) (i8x16.splat (i32.const 92))))
          (i8x16.lt_u (local.get $block) (i8x16.splat (i32.const 32))))))
        (if (local.get $mask)
          (then (return (i32.add (local.get $ptr) (i32.ctz (local.get $mask))))))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 16)))
        (br $blocks)))
    (block $done
      (loop $bytes
        (br_if $done (i32.ge_u (local.get $ptr) (local.get $end)))
        (local.set $c (i32.load8_u (local.get $ptr)))
        (if (i32.or
              (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
              (i32.lt_u (local.get $c) (i32.const 32)))
          (then (return (local.get $ptr))))
        (local.set $ptr (i32.add (local.get $ptr) (i32.const 1)))
        (br $bytes)))
    (local.get $end))

  ;; 1 when the byte is a hexadecimal digit.
  (func $isHex (param $c i32) (result i32)
    (i32.or
      (i32.lt_u (i32.sub (local.get $c) (i32.const 48)) (i32.const 10))
      (i32.lt_u (i32.sub (i32.or (local.get $c) (i32.const 32)) (i32.const 97)) (i32.const 6))))

  ;; The content of a string token starts at $ptr (after its opening quote), the text ends at $end: the offset just
  ;; after the closing quote, or -1 when the token is not a JSON string within the text (a control character, an
  ;; escape JSON does not have, no closing quote).
  (func (export "stringEnd") (param $ptr i32) (param $end i32) (result i32)
    (local $c i32) (local $e i32)
    (loop $scan
      (local.set $ptr (call $nextSpecial (local.get $ptr) (local.get $end)))
      (if (i32.ge_u (local.get $ptr) (local.get $end)) (then (return (i32.const -1))))
      (local.set $c (i32.load8_u (local.get $ptr)))
      (if (i32.eq (local.get $c) (i32.const 34))
        (then (return (i32.add (local.get $ptr) (i32.const 1)))))
      (if (i32.ne (local.get $c) (i32.const 92)) (then (return (i32.const -1))))
      ;; an escape: both of its bytes (six for \uXXXX) lie before $end
      (if (i32.ge_u (i32.add (local.get $ptr) (i32.const 1)) (local.get $end)) (then (return (i32.const -1))))
      (local.set $e (i32.load8_u (i32.add (local.get $ptr) (i32.const 1))))
      (if (i32.eq (local.get $e) (i32.const 117))
        (then
          (if (i32.gt_u (i32.add (local.get $ptr) (i32.const 6)) (local.get $end)) (then (return (i32.const -1))))
          (if (i32.eqz (i32.and
                (i32.and
                  (call $isHex (i32.load8_u (i32.add (local.get $ptr) (i32.const 2))))
                  (call $isHex (i32.load8_u (i32.add (local.get $ptr) (i32.const 3)))))
                (i32.and
                  (call $isHex (i32.load8_u (i32.add (local.get $ptr) (i32.const 4))))
                  (call $isHex (i32.load8_u (i32.add (local.get $ptr) (i32.const 5)))))))
            (then (return (i32.const -1))))
          (local.set $ptr (i32.add (local.get $ptr) (i32.const 6)))
          (br $scan)))
      ;; " \ / b f n r t
      (if (i32.or
            (i32.or
              (i32.or (i32.eq (local.get $e) (i32.const 34)) (i32.eq (local.get $e) (i32.const 92)))
              (i32.or (i32.eq (local.get $e) (i32.const 47)) (i32.eq (local.get $e) (i32.const 98))))
            (i32.or
              (i32.or (i32.eq (local.get $e) (i32.const 102)) (i32.eq (local.get $e) (i32.const 110)))
              (i32.or (i32.eq (local.get $e) (i32.const 114)) (i32.eq (local.get $e) (i32.const 116)))))
        (then
          (local.set $ptr (i32.add (local.get $ptr) (i32.const 2)))
          (br $scan)))
      (return (i32.const -1)))
    (i32.const -1))
)
