# Latency against offered load, storeapi beside its baseline, from two files of
# bench/profile's open-loop steps (columns: offered_rps p50_us p99_us p99.9_us):
#   gnuplot -e "storeapi='A.dat'; base='B.dat'; baseline='nginx'; out='X.png'; title='...'" latency.gp
set terminal pngcairo size 900,560 font ",10"
set output out
set title title
set xlabel "offered load (requests per second)"
set ylabel "latency from the intended send time (ms, log scale)"
set logscale y
set grid
set key top left
plot storeapi using 1:($2/1000) with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "storeapi p50", \
     storeapi using 1:($3/1000) with linespoints lw 2 pt 5 lc rgb "#ff7f0e" title "storeapi p99", \
     storeapi using 1:($4/1000) with linespoints lw 2 pt 9 lc rgb "#d62728" title "storeapi p99.9", \
     base using 1:($2/1000) with linespoints dt 2 pt 6 lc rgb "#1f77b4" title baseline." p50", \
     base using 1:($3/1000) with linespoints dt 2 pt 4 lc rgb "#ff7f0e" title baseline." p99", \
     base using 1:($4/1000) with linespoints dt 2 pt 8 lc rgb "#d62728" title baseline." p99.9"
