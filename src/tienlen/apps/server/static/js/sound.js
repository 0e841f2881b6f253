// Short sounds made in the page with WebAudio (no sound files): your turn, a play, a chop, a
// win. Off until the player turns them on (remembered in this browser).
const KEY = "tienlen.sound";
let ctx = null;

/** Whether sounds are on. */
export function soundOn() {
  return localStorage.getItem(KEY) === "on";
}

/** Turn sounds on or off (on: the audio starts here, inside the tap that asked for it). */
export function setSound(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on && !ctx && window.AudioContext) ctx = new AudioContext();
}

// Each sound: notes of [start s, frequency Hz, length s, wave, loudness].
const SOUNDS = {
  turn: [[0, 660, 0.12, "sine", 0.18], [0.12, 880, 0.16, "sine", 0.18]],
  play: [[0, 220, 0.06, "triangle", 0.25]],
  chop: [[0, 110, 0.25, "sawtooth", 0.22], [0.05, 82, 0.3, "square", 0.12]],
  win: [[0, 523, 0.14, "sine", 0.2], [0.14, 659, 0.14, "sine", 0.2], [0.28, 784, 0.14, "sine", 0.2], [0.42, 1047, 0.3, "sine", 0.2]],
};

/** Play one of the sounds (nothing when sounds are off). */
export function play(name) {
  if (!soundOn() || !SOUNDS[name]) return;
  if (!ctx) {
    if (!window.AudioContext) return;
    ctx = new AudioContext();
  }
  const now = ctx.currentTime;
  for (const [at, freq, len, wave, gain] of SOUNDS[name]) {
    const osc = ctx.createOscillator();
    const amp = ctx.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    amp.gain.setValueAtTime(gain, now + at);
    amp.gain.exponentialRampToValueAtTime(0.001, now + at + len);
    osc.connect(amp).connect(ctx.destination);
    osc.start(now + at);
    osc.stop(now + at + len + 0.02);
  }
}
