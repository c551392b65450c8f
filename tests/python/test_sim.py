"""botwire.Sim: an emulated robot stepped by hand (bytes in, bytes out,
its truth), and served on TCP to a host in this process."""

import botwire


def test_by_hand():
    with botwire.Sim("kobuki", start=(2.0, 1.5, 90.0)) as sim:
        assert sim.truth.pose == (2.0, 1.5, botwire.Pose(0, 0, 1.5707963267948966).theta)
        cmd = botwire.encode("kobuki", {"type": "base_control", "speed": 200, "radius": 0})
        sim.input(cmd, 0.0)
        t = 0.0
        out = b""
        while t < 0.4:  # within its 0.5 s of obeying one command
            t = sim.next_deadline
            sim.step(t)
            out += sim.output()
        assert abs(sim.truth.v - 0.2) < 0.01 and sim.truth.y > 1.55
        msgs = list(botwire.decode("kobuki", out))
        assert msgs[-1]["frames"] >= 19 and msgs[-1]["skipped_bytes"] == 0
        assert {"basic_sensor_data", "inertial_sensor"} <= {m["type"] for m in msgs}


def test_served_on_tcp():
    # Real time, both ends in this process: the base steps (its command kept
    # in force) until the emulator's truth says the robot is at speed, then
    # until it has truly gone 5 cm, however long a loaded machine makes that
    # take; the 30 s only end a robot that never does (a hang).
    with botwire.Sim("p2os", tcp=0) as sim:
        assert sim.url.startswith("p2os:tcp://127.0.0.1:")
        with botwire.Base(sim.url) as b:
            assert b.state.online and b.state.hardware.startswith("Pioneer")
            give_up = b.now + 30
            b.drive(0.2, 0.0)
            while sim.truth.v <= 0.15 and b.now < give_up:
                b.step(0.1)
            assert sim.truth.v > 0.15
            x0 = sim.truth.x
            while sim.truth.x <= x0 + 0.05 and b.now < give_up:
                b.step(0.1)
            assert sim.truth.x > x0 + 0.05
        # Closed: the base's stop (30 s: a guard, as above).
        assert sim.wait_until(lambda t: abs(t.v) < 1e-6, 30)
    assert "stopped; robot at" in sim.summary


def test_world_file(tmp):
    import os
    path = os.path.join(tmp, "w.world")
    open(path, "w").write("size 3 3\nstart 1 1 0\n")
    with botwire.Sim("kobuki", world=path) as sim:
        assert sim.truth.pose[:2] == (1.0, 1.0)
    open(path, "w").write("size 3\n")
    try:
        botwire.Sim("kobuki", world=path)
    except botwire.BotwireError as e:
        assert "line 1" in str(e)
    else:
        raise AssertionError("a bad world loaded")
