# bench/soak's per-minute series, from the data files of `soak.py plot DIR OUT`:
#   gnuplot -e "dir='OUT'; out='X.png'; title='...'" soak.gp
set terminal pngcairo size 1400,1300 font ",9" noenhanced
set output out
set datafile separator "\t"
set key autotitle columnheader outside right top font ",8"
set grid
set xlabel "minute"
set multiplot layout 3,2 title title
set logscale y
set ylabel "ms"
do for [kind in "reads writes"] {
  set title "p99 of the ".kind." (log scale; from the intended send time)"
  file = dir.'/p99-'.kind.'.dat'
  stats file nooutput
  plot for [i=2:STATS_columns] file using 1:i with lines title columnhead(i)
}
unset logscale y
set title "RSS, load average"
set ylabel "MiB"
set y2label "load average (1 min)"
set y2tics
state = dir.'/state.dat'
plot state using 1:($3/1024) with linespoints pt 7 ps 0.5 title "server RSS", \
     state using 1:($10/1024) with linespoints pt 6 ps 0.5 dt 3 title "server anonymous", \
     state using 1:($4/1024) with linespoints pt 5 ps 0.5 title "dispatcher RSS", \
     state using 1:($11/1024) with linespoints pt 4 ps 0.5 dt 3 title "dispatcher anonymous", \
     state using 1:2 axes x1y2 with lines dt 2 lc rgb "gray40" title "load average"
set title "idempotency-key rows, outbox slots"
set ylabel "rows"
set y2label "slots"
plot state using 1:5 with linespoints pt 7 ps 0.5 title "idempotency keys", \
     state using 1:6 axes x1y2 with steps lw 2 title "outbox slots"
unset y2tics
unset y2label
set logscale y
set title "the largest tables: table + index size (log scale)"
set ylabel "MiB"
file = dir.'/tables.dat'
stats file nooutput
plot for [i=2:STATS_columns] file using 1:i with lines title columnhead(i)
unset logscale y
set title "dead tuples of the largest tables"
set ylabel "dead tuples"
file = dir.'/dead.dat'
stats file nooutput
plot for [i=2:STATS_columns] file using 1:i with lines title columnhead(i)
unset multiplot
