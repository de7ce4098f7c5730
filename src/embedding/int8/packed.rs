//! The layout both kernels read: a layer's int8 weights in blocks of 16 outputs, each row of
//! inputs quantized to bytes with its scale, and the portable kernel, which the VNNI one
//! matches to the bit.

use candle_core::Result;
use candle_nn::Linear;

/// Outputs per block of packed weights: one 512-bit register of 32-bit sums.
pub const LANES: usize = 16;
/// Inputs one VNNI instruction adds into each output.
pub const GROUP: usize = 4;

/// A linear layer's weights in int8, packed for VNNI's shape.
pub struct Packed {
    pub inputs: usize,
    pub outputs: usize,
    /// In blocks of 16 outputs, each `[inputs / 4][16][4]`: one 64-byte load holds four
    /// inputs' weights for sixteen outputs, the shape of one VNNI instruction.
    pub weights: Vec<i8>,
    /// Per output: its weights' scale, and their sum.
    pub scales: Vec<f32>,
    pub sums: Vec<i32>,
    pub bias: Vec<f32>,
}

impl Packed {
    /// `linear`'s weights in int8; `None` when its shape does not fit the blocks (inputs and
    /// outputs multiples of 16: BERT's are multiples of 64).
    pub fn quantize(linear: &Linear) -> Result<Option<Self>> {
        let (outputs, inputs) = linear.weight().dims2()?;
        if outputs % LANES != 0 || inputs % LANES != 0 {
            return Ok(None);
        }
        let weights: Vec<Vec<f32>> = linear.weight().to_vec2()?;
        let bias = match linear.bias() {
            Some(bias) => bias.to_vec1()?,
            None => vec![0.0; outputs],
        };
        let mut packed = vec![0; outputs * inputs];
        let (mut scales, mut sums) = (Vec::with_capacity(outputs), Vec::with_capacity(outputs));
        for (output, row) in weights.iter().enumerate() {
            let (scale, values) = symmetric(row);
            let mut sum = 0;
            for (input, value) in values.enumerate() {
                sum += i32::from(value);
                packed[packed_index(inputs, output, input)] = value;
            }
            scales.push(scale);
            sums.push(sum);
        }
        Ok(Some(Self {
            inputs,
            outputs,
            weights: packed,
            scales,
            sums,
            bias,
        }))
    }
}

/// Where the weight of `output` for `input` is in the packed blocks.
fn packed_index(inputs: usize, output: usize, input: usize) -> usize {
    let block = output / LANES * LANES * inputs;
    block + input / GROUP * LANES * GROUP + output % LANES * GROUP + input % GROUP
}

/// How one row of inputs became bytes: `x ≈ (byte − zero) · step`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scale {
    pub step: f32,
    pub zero: i32,
}

impl Scale {
    /// The step and zero that map the row's range, widened to hold 0, onto 0..=255.
    pub fn of(min: f32, max: f32) -> Self {
        let (min, max) = (min.min(0.0), max.max(0.0));
        let step = if max > min { (max - min) / 255.0 } else { 1.0 };
        Self {
            step,
            zero: (-min / step).round_ties_even() as i32,
        }
    }
}

/// `row` onto −127..=127, its largest magnitude to 127: the scale that brings it back, and
/// the values. One output's weights are kept this way, and so is a row of the vocabulary.
pub fn symmetric(row: &[f32]) -> (f32, impl Iterator<Item = i8> + '_) {
    let max = row.iter().fold(0.0_f32, |max, v| max.max(v.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    let values =
        (row.iter()).map(move |v| (v / scale).round_ties_even().clamp(-127.0, 127.0) as i8);
    (scale, values)
}

/// Each row of `xs` to bytes, with its scale.
pub fn quantize(xs: &[f32], inputs: usize, out: &mut [u8], scales: &mut [Scale]) {
    for ((row, bytes), scale) in xs
        .chunks_exact(inputs)
        .zip(out.chunks_exact_mut(inputs))
        .zip(scales.iter_mut())
    {
        let (min, max) = row.iter().fold((0.0_f32, 0.0_f32), |(min, max), &x| {
            (min.min(x), max.max(x))
        });
        *scale = Scale::of(min, max);
        let inverse = 1.0 / scale.step;
        for (byte, &x) in bytes.iter_mut().zip(row) {
            *byte = ((x * inverse).round_ties_even() as i32 + scale.zero).clamp(0, 255) as u8;
        }
    }
}

/// The products one value at a time: where the CPU lacks VNNI.
pub fn product(layer: &Packed, quantized: &[u8], row_scales: &[Scale], out: &mut [f32]) {
    let inputs = layer.inputs;
    for ((row, &row_scale), out) in quantized
        .chunks_exact(inputs)
        .zip(row_scales)
        .zip(out.chunks_exact_mut(layer.outputs))
    {
        for (output, value) in out.iter_mut().enumerate() {
            let sum: i32 = (row.iter().enumerate())
                .map(|(input, &x)| {
                    i32::from(x) * i32::from(layer.weights[packed_index(inputs, output, input)])
                })
                .sum();
            *value = dequantize(layer, output, sum, row_scale);
        }
    }
}

/// One output from its integer sum, in the order the VNNI kernel computes it.
fn dequantize(layer: &Packed, output: usize, sum: i32, row_scale: Scale) -> f32 {
    let exact = sum - row_scale.zero * layer.sums[output];
    exact as f32 * (row_scale.step * layer.scales[output]) + layer.bias[output]
}
