" Vim syntax file
" Language:    neuroc .neuro models (docs/language.md)
" Install:     copy syntax/ and ftdetect/ into ~/.vim (or ~/.config/nvim)
" The keyword lists are checked against grammar/lexer.re and compiler/ir.c by
" tests/editors/check_editors.py, so they follow the language.

if exists("b:current_syntax")
  finish
endif

syn keyword neuroDecl       import const neuron synapse receptor func param state derived input
syn keyword neuroDecl       require pre post dynamics sim population projection connect runtime
syn keyword neuroStatement  stimulus series record run set let return emit update on spike when
syn keyword neuroStatement  refractory unless using clamp range step every from to of spikes in within where
syn keyword neuroStatement  grid spacing periodic via
syn keyword neuroConditional if else
syn keyword neuroType       int bool weight string
syn keyword neuroBoolean    true false
syn keyword neuroBuiltin    exp log sqrt abs min max exprel sin cos tan tanh floor ceil round
syn keyword neuroBuiltin    expm1 log1p log10 atan sinh cosh clip
syn keyword neuroBuiltin    uniform normal poisson pow pulse crossed topk from_file deliver
syn keyword neuroConstant   inf pi

syn match   neuroComment    "#.*$" contains=@Spell
syn region  neuroString     start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline
" a number, and the unit right after it: 10 ms, -65 mV, 0.5 nS/um^2
syn match   neuroNumber     "\<\d\+\(\.\d*\)\=\([eE][+-]\=\d\+\)\=" nextgroup=neuroUnit skipwhite
syn match   neuroNumber     "\.\d\+\([eE][+-]\=\d\+\)\=" nextgroup=neuroUnit skipwhite
syn match   neuroUnit       "\<\(f\|p\|n\|u\|µ\|m\|c\|k\|M\|G\)\=\(s\|Hz\|m\|g\|V\|A\|C\|S\|F\|Ohm\|mol\|M\|L\|K\|steps\|step\)\>\(\s*[*/^]\s*-\=\w\+\)*" contained
syn match   neuroPrime      "'\s*="me=e-1
syn match   neuroOperator   "->\|&&\|||\|[-+*/%^<>!=]=\="
syn match   neuroModelName  "\(\<\(neuron\|synapse\|receptor\)\s\+\)\@<=\h\w*"

hi def link neuroDecl        Keyword
hi def link neuroStatement   Statement
hi def link neuroConditional Conditional
hi def link neuroType        Type
hi def link neuroBoolean     Boolean
hi def link neuroBuiltin     Function
hi def link neuroConstant    Constant
hi def link neuroComment     Comment
hi def link neuroString      String
hi def link neuroNumber      Number
hi def link neuroUnit        Special
hi def link neuroPrime       Operator
hi def link neuroOperator    Operator
hi def link neuroModelName   Identifier

let b:current_syntax = "neuro"
