# wanbond: the CLI finds the daemons' control sockets where the init script puts them.
export WANBOND_CONTROL_DIR=/var/run/wanbond
