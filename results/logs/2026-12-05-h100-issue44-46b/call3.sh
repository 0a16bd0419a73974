# Call 3 (run inline): collect the soak call 1 started (run.sh soak-start 600).
cd .gpu-bundle && OUT=$OUT ./run.sh soak-wait 200; echo "soak-wait exit $?"
