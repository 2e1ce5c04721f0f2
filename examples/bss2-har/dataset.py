"""A synthetic human-activity data set ("synthetic HAR"), made here from fixed seeds: no download, no network.

The shape of the UCI HAR windows the hxtorch paper's topology takes: 9 channels x 128 samples at 50 Hz (2.56 s) per
window, 6 activity classes. Channels, in order: body acceleration x, y, z (g, gravity removed), gyroscope x, y, z
(rad/s), total acceleration x, y, z (g: body acceleration plus gravity in the sensor's frame).

Per class (numbers drawn per window, uniformly in the ranges given):
  0 walking            step frequency 1.6..2.1 Hz, body acceleration amplitude 0.20..0.40 g, harmonics 2 and 3 at
                       0.3..0.5 and 0.1..0.2 of the fundamental, gyroscope 0.4..0.9 rad/s, upright (gravity along x)
  1 walking upstairs   1.3..1.8 Hz, 0.15..0.35 g, harmonic 2 at 0.5..0.8 (a slower, heavier step), gyroscope 0.6..1.1
                       rad/s with a yaw (gyro z) part, upright leaning forward 5..15 degrees
  2 walking downstairs 1.8..2.4 Hz, 0.30..0.55 g, a heel-strike impulse per step (a short Gaussian bump, width
                       20..40 ms) on top of the sine, gyroscope 0.5..1.0 rad/s, upright leaning back 0..10 degrees
  3 sitting            no gait; tremor and fidgeting (0.5..3 Hz, 0.005..0.03 g), the sensor tilted 25..45 degrees
  4 standing           as sitting, tilted 5..25 degrees: overlaps sitting where the tilts meet (as real HAR does,
                       where sitting and standing are the classes models confuse)
  5 laying             as sitting, gravity mostly along z (tilt 70..100 degrees), a slow breathing sway (0.2..0.4 Hz)

Every window also gets: a random phase per channel group, a per-window gain per axis 0.7..1.3 and a random mixing of
the gait across the three axes (the sensor's yaw on the body: 0..360 degrees), an offset per channel (std 0.02 g or
0.05 rad/s: sensor bias), white noise (std 0.03 g, 0.08 rad/s) and a slow drift (a random-walk of std 0.002 per
sample). These overlaps (frequencies and amplitudes of the three gaits meet; the three static classes differ only by
tilt) keep a float model well below 100 %.

The network takes non-negative inputs (BrainScaleS-2's arrays take unsigned 5-bit events): each channel is mapped to
[0, 1] by a fixed affine map, 0.5 + x / (2 * range) clipped, range 0.75 g for body acceleration, 1.5 rad/s for the
gyroscope and 1.25 g for total acceleration (the heel strikes of class 2 saturate, as a sensor's range would), then
rounded to 8 bits (multiples of 1/255). The chip sends 5-bit inputs: one step of 1/32 of the range is 0.047 g of
body acceleration, so the tremor of the static classes is below it and their tilt (0.08 g of total acceleration on x
per step) has to carry them. (With twice these ranges the emulated chip deployed lost 40 of 60 points: measured.)

`windows(n, seed)` is deterministic: the same (n, seed) gives the same bytes on every machine (numpy's PCG64 through
default_rng; only elementary float64 operations). Training and held-out sets come from different seeds (1 and 2).
"""
import numpy as np

CHANNELS = 9
SAMPLES = 128
RATE_HZ = 50.0
CLASSES = ['walking', 'walking upstairs', 'walking downstairs', 'sitting', 'standing', 'laying']
RANGES = np.array([0.75] * 3 + [1.5] * 3 + [1.25] * 3)  # g, rad/s, g: the fixed map to [0, 1]

T = np.arange(SAMPLES) / RATE_HZ


def _rotation(rng, tilt_deg):
    """Gravity's direction for a sensor tilted by tilt_deg from upright (x) towards z, with a small random roll."""
    tilt = np.radians(tilt_deg)
    roll = rng.uniform(-0.3, 0.3)
    return np.array([np.cos(tilt), np.sin(tilt) * np.sin(roll), np.sin(tilt) * np.cos(roll)])


def _gait(rng, label):
    """Body acceleration [3, T] and gyroscope [3, T] of one window of a walking class, and its lean in degrees."""
    u = rng.uniform
    if label == 0:
        f, a, h2, h3, g, lean = u(1.6, 2.1), u(0.20, 0.40), u(0.3, 0.5), u(0.1, 0.2), u(0.4, 0.9), u(-3, 3)
    elif label == 1:
        f, a, h2, h3, g, lean = u(1.3, 1.8), u(0.15, 0.35), u(0.5, 0.8), u(0.0, 0.1), u(0.6, 1.1), u(5, 15)
    else:
        f, a, h2, h3, g, lean = u(1.8, 2.4), u(0.30, 0.55), u(0.1, 0.3), u(0.0, 0.1), u(0.5, 1.0), u(-10, 0)
    phase = u(0, 2 * np.pi)
    w = 2 * np.pi * f * T + phase
    vertical = a * (np.sin(w) + h2 * np.sin(2 * w + u(0, 2 * np.pi)) + h3 * np.sin(3 * w + u(0, 2 * np.pi)))
    if label == 2:
        # heel strikes: one short Gaussian bump per step, at the step's phase
        width = u(0.020, 0.040)
        steps = (np.arange(-1, int(f * T[-1]) + 2) - phase / (2 * np.pi)) / f
        vertical = vertical + a * 1.2 * np.exp(-((T[:, None] - steps[None, :]) ** 2) / (2 * width ** 2)).sum(1)
    lateral = 0.5 * a * np.sin(w / 2 + u(0, 2 * np.pi))  # the sway at half the step frequency
    forward = 0.4 * a * np.sin(w + u(0, 2 * np.pi))
    yaw = u(0, 2 * np.pi)  # the sensor's orientation on the body mixes lateral and forward
    body = np.stack([vertical,
                     np.cos(yaw) * lateral - np.sin(yaw) * forward,
                     np.sin(yaw) * lateral + np.cos(yaw) * forward])
    gyro = g * np.stack([np.sin(w + u(0, 2 * np.pi)), 0.6 * np.sin(w / 2 + u(0, 2 * np.pi)),
                         (0.7 if label == 1 else 0.3) * np.sin(w + u(0, 2 * np.pi))])
    return body, gyro, lean


def _still(rng, label):
    """Body acceleration and gyroscope of a static class, and its tilt in degrees."""
    u = rng.uniform
    tilt = {3: u(25, 45), 4: u(5, 25), 5: u(70, 100)}[label]
    body = np.zeros((3, SAMPLES))
    gyro = np.zeros((3, SAMPLES))
    for axis in range(3):
        body[axis] = u(0.005, 0.03) * np.sin(2 * np.pi * u(0.5, 3.0) * T + u(0, 2 * np.pi))
        gyro[axis] = u(0.01, 0.08) * np.sin(2 * np.pi * u(0.5, 3.0) * T + u(0, 2 * np.pi))
    if label == 5:
        body[2] += u(0.01, 0.03) * np.sin(2 * np.pi * u(0.2, 0.4) * T + u(0, 2 * np.pi))
    return body, gyro, tilt


def window(rng, label):
    """One window [9, 128] in physical units (g, rad/s)."""
    body, gyro, tilt = _gait(rng, label) if label < 3 else _still(rng, label)
    body = body * rng.uniform(0.7, 1.3, (3, 1))
    gyro = gyro * rng.uniform(0.7, 1.3, (3, 1))
    gravity = _rotation(rng, tilt)[:, None]
    x = np.concatenate([body, gyro, body + gravity])
    sensor = np.array([0.03] * 3 + [0.08] * 3 + [0.03] * 3)[:, None]
    bias = np.array([0.02] * 3 + [0.05] * 3 + [0.02] * 3)[:, None]
    drift = np.cumsum(rng.normal(0, 0.002, (CHANNELS, SAMPLES)), axis=1)
    return x + rng.normal(0, 1, (CHANNELS, 1)) * bias + rng.normal(0, 1, (CHANNELS, SAMPLES)) * sensor + drift


def windows(n, seed):
    """n windows: inputs [n, 9, 128] float32 in [0, 1] (multiples of 1/255), labels int64 (balanced in expectation)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), n)
    x = np.stack([window(rng, int(c)) for c in labels]) if n else np.zeros((0, CHANNELS, SAMPLES))
    x = np.clip(0.5 + x / (2 * RANGES[None, :, None]), 0, 1)
    return (np.round(x * 255) / 255).astype(np.float32), labels.astype(np.int64)


def load(n_train, n_test):
    """(train inputs, train labels, held-out inputs, held-out labels, name)."""
    xs, ys = windows(n_train, 1)
    xt, yt = windows(n_test, 2)
    return xs, ys, xt, yt, 'synthetic HAR'


if __name__ == '__main__':
    # a look at the set: per class the count and the mean and spread of each channel group
    x, y = windows(600, 1)
    for c, name in enumerate(CLASSES):
        s = x[y == c]
        print(f'{name:20s} {len(s):4d}  ' + '  '.join(f'{s[:, i:i + 3].mean():.3f}+-{s[:, i:i + 3].std():.3f}' for i in (0, 3, 6)))
