#!/usr/bin/env bash
# Haptics across slow links (issue 22): the simulated pen hovers 1 s, presses the cantilever
# (gravity off) for 1 s, holds 3 s and releases in 1 s with constraint contact (1 kN/m virtual
# coupling), straight to the server and through softbody-client --emulate-network at several round
# trips with +-30 ms jitter (+-RTT below 30 ms), with and without 2 % TCP loss; with the candidate
# reach and the passivity controller, without the controller, and without the reach. Per run: the loop's rate,
# measured round trips, model swap disagreements and the largest rendered swap step, the held
# force against the direct run's, and the energy the pen gained over the cycle (sum F . dx from
# the device recording). Writes slow-link.json to $RESULTS_DIR (default build/bench-results;
# RESULTS_DIR=bench/results replaces the recorded one) and prints a Markdown table.
# The contact problem comes as the client asks (CONTACT_PROBLEM=upper-float, the default, or full);
# LINKS, LOSSES and VARIANTS pick a subset, e.g. LINKS="150 300" LOSSES=0.02 VARIANTS="auto,on";
# SEED (default 1) seeds the emulated link's jitter and loss draws.
# Usage: bench/run_slow_link.sh   (needs build/release; ~5 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
export RESULTS_DIR=${RESULTS_DIR:-build/bench-results}
export CONTACT_PROBLEM=${CONTACT_PROBLEM:-upper-float}
export LINKS=${LINKS:-0 20 50 100 150 300} LOSSES=${LOSSES:-0 0.02}
export VARIANTS=${VARIANTS:-auto,on auto,off 0,on} SEED=${SEED:-1}
mkdir -p "$RESULTS_DIR"
exec bench/with_server.sh --workers 1 -- bash -c '
set -euo pipefail
cli="build/release/client-cpp/softbody-client --server $SOFTBODY_SERVER_ADDR"
id=$($cli create --scene cantilever --set "gravity=[0,0,0]")
pen="sim:start=0.1,0.053,0.02;direction=0,-1,0;depth=0.013;period=2;hold=3;wait=1;cycles=1"
out=$RESULTS_DIR/slow-link.json
echo "[" > $out.tmp
first=1
for rtt in $LINKS; do
  for loss in $LOSSES; do
    [ "$rtt" = 0 ] && [ "$loss" != 0 ] && continue
    jitter=$(( rtt < 30 ? rtt : 30 ))
    net=""
    [ "$rtt" != 0 ] && net="--emulate-network rtt=$rtt,jitter=$jitter,loss=$loss,seed=$SEED"
    for variant in $VARIANTS; do
      reach=${variant%,*} passivity=${variant#*,}
      flag=""; [ $passivity = off ] && flag=--no-passivity
      [ $reach = 0 ] && flag="$flag --reach 0"
      $cli control $id reset > /dev/null
      $cli $net record $id --output /tmp/slow-link.csv --cpu -2 --contact constraint \
        --device "$pen" --contact-problem $CONTACT_PROBLEM --json $flag 2>/dev/null > /tmp/slow-link.json
      python3 bench/slow_link_summary.py /tmp/slow-link.json /tmp/slow-link.csv $rtt $jitter $loss $passivity $reach $CONTACT_PROBLEM > /tmp/slow-link-row.json
      [ $first = 1 ] || echo "," >> $out.tmp
      first=0
      cat /tmp/slow-link-row.json >> $out.tmp
    done
  done
done
echo "]" >> $out.tmp
mv $out.tmp $out
python3 bench/slow_link_summary.py --table $out
'
