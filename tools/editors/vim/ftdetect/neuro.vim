" .neuro files are neuroc models (docs/language.md)
autocmd BufRead,BufNewFile *.neuro setfiletype neuro
