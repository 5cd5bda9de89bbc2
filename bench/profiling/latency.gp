# Latency against offered load, storeapi beside its baseline, from bench/profile's TSV:
#   gnuplot -e "data='FILE.tsv'; out='FILE.png'; title='...'; baseline='nginx'" latency.gp
# Columns: side load_pct offered_rps achieved_rps p50_us p99_us p99.9_us max_us
set terminal pngcairo size 900,560 font ",10"
set output out
set title title
set xlabel "offered load (requests per second)"
set ylabel "latency from the intended send time (ms, log scale)"
set logscale y
set grid
set key top left
set datafile separator "\t"
plot data using ($1 eq "storeapi" ? $3 : NaN):($5/1000) with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "storeapi p50", \
     data using ($1 eq "storeapi" ? $3 : NaN):($6/1000) with linespoints lw 2 pt 5 lc rgb "#ff7f0e" title "storeapi p99", \
     data using ($1 eq "storeapi" ? $3 : NaN):($7/1000) with linespoints lw 2 pt 9 lc rgb "#d62728" title "storeapi p99.9", \
     data using ($1 eq "baseline" ? $3 : NaN):($5/1000) with linespoints dt 2 pt 6 lc rgb "#1f77b4" title baseline." p50", \
     data using ($1 eq "baseline" ? $3 : NaN):($6/1000) with linespoints dt 2 pt 4 lc rgb "#ff7f0e" title baseline." p99", \
     data using ($1 eq "baseline" ? $3 : NaN):($7/1000) with linespoints dt 2 pt 8 lc rgb "#d62728" title baseline." p99.9"
