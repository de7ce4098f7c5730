//! A linear layer with int8 weights: on a CPU with AVX-512 VNNI its products take about a
//! quarter of f32's time (docs/recall.md), within about 1% of the largest output.
//!
//! The weights are quantized once, per output, symmetric to ±127. Each product's inputs are
//! quantized per token to unsigned bytes, as VNNI multiplies unsigned by signed bytes: the
//! token's range, widened to hold 0, onto 0..=255, so that the GELU's outputs (nearly all
//! above −0.17) use every step. The zero point comes back out through each output's weight
//! sum. The sums are exact 32-bit integers, so the AMX, VNNI and portable kernels give the
//! same outputs to the bit (the tests below check it).

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
mod amx;
mod packed;
#[cfg(target_arch = "x86_64")]
mod vnni;

use candle_core::{CpuStorage, CustomOp1, Layout, Module, Result, Shape, Tensor};
use candle_nn::Linear;

use super::activations::values;
pub use packed::symmetric;
use packed::{Packed, Scale};

/// Whether this CPU has the instructions int8 products are fast with.
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    return vnni::available();
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// A linear layer's weights packed for int8 products, with the kernel this CPU runs them by.
pub struct Int8Linear {
    packed: Packed,
    kernel: Kernel,
}

/// Which code multiplies: the fastest this CPU has for the layer's shape.
#[derive(Clone, Copy)]
enum Kernel {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Vnni,
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    Amx,
}

impl Kernel {
    // The layer's shape matters only to AMX.
    #[cfg_attr(
        not(all(target_arch = "x86_64", target_os = "linux")),
        allow(unused_variables)
    )]
    fn fastest(layer: &Packed) -> Self {
        #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
        if amx::available() && amx::fits(layer) {
            return Self::Amx;
        }
        #[cfg(target_arch = "x86_64")]
        if vnni::available() {
            return Self::Vnni;
        }
        Self::Portable
    }
}

impl Int8Linear {
    /// `linear`'s weights in int8; `None` when its shape does not fit the blocks (inputs and
    /// outputs multiples of 16: BERT's are multiples of 64).
    pub fn quantize(linear: &Linear) -> Result<Option<Self>> {
        Ok(Packed::quantize(linear)?.map(|packed| Self {
            kernel: Kernel::fastest(&packed),
            packed,
        }))
    }

    /// `rows` rows of inputs times the weights, plus the bias: `rows × outputs` values.
    fn product(&self, xs: &[f32], rows: usize) -> Vec<f32> {
        let layer = &self.packed;
        // AMX takes rows 32 at a time: the bytes' rows past the inputs' stay zeros, their sums
        // unread.
        let padded = match self.kernel {
            #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
            Kernel::Amx => rows.next_multiple_of(amx::ROWS),
            _ => rows,
        };
        let mut quantized = vec![0; padded * layer.inputs];
        let mut row_scales = vec![Scale::default(); rows];
        let mut out = vec![0.0; rows * layer.outputs];
        // SAFETY (both): the kernel was chosen only where the CPU has its instructions
        // (`Kernel::fastest`).
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni => unsafe {
                vnni::quantize(xs, layer.inputs, &mut quantized, &mut row_scales);
                vnni::product(layer, &quantized, &row_scales, &mut out);
            },
            #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
            Kernel::Amx => unsafe {
                vnni::quantize(xs, layer.inputs, &mut quantized, &mut row_scales);
                amx::product(layer, &quantized, &row_scales, &mut out);
            },
            Kernel::Portable => {
                packed::quantize(xs, layer.inputs, &mut quantized, &mut row_scales);
                packed::product(layer, &quantized, &row_scales, &mut out);
            }
        }
        out
    }
}

impl Module for Int8Linear {
    fn forward(&self, xs: &Tensor) -> Result<Tensor> {
        xs.contiguous()?.apply_op1_no_bwd(self)
    }
}

impl CustomOp1 for Int8Linear {
    fn name(&self) -> &'static str {
        "int8-linear"
    }

    fn cpu_fwd(&self, storage: &CpuStorage, layout: &Layout) -> Result<(CpuStorage, Shape)> {
        let values = values(self.name(), storage, layout)?;
        let mut dims = layout.shape().dims().to_vec();
        match dims.last_mut() {
            Some(last) if *last == self.packed.inputs => *last = self.packed.outputs,
            _ => candle_core::bail!("int8-linear takes rows of {} values", self.packed.inputs),
        }
        let out = self.product(values, values.len() / self.packed.inputs);
        Ok((CpuStorage::F32(out), Shape::from(dims)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    /// A layer and its inputs, `[1, rows, inputs]`, from a fixed pseudo-random sequence.
    fn case(inputs: usize, outputs: usize, rows: usize) -> (Linear, Tensor) {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut values = |n: usize, scale: f32| -> Vec<f32> {
            (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    ((state >> 40) as f32 / (1 << 23) as f32 - 1.0) * scale
                })
                .collect()
        };
        let device = Device::Cpu;
        let weight = Tensor::from_vec(values(outputs * inputs, 0.1), (outputs, inputs), &device);
        let bias = Tensor::from_vec(values(outputs, 0.1), outputs, &device);
        let xs = Tensor::from_vec(values(rows * inputs, 2.0), (1, rows, inputs), &device);
        let linear = Linear::new(weight.unwrap(), Some(bias.unwrap()));
        (linear, xs.unwrap())
    }

    fn largest(values: &Tensor) -> f32 {
        values
            .abs()
            .unwrap()
            .max_all()
            .unwrap()
            .to_scalar()
            .unwrap()
    }

    #[test]
    fn a_row_comes_back_within_half_a_step_of_its_largest_value() {
        let row = [0.5, -1.27, 0.0, 0.003, 1.0];
        let (scale, values) = symmetric(&row);
        let values: Vec<i8> = values.collect();
        assert_eq!(values[1], -127);
        for (v, q) in row.iter().zip(&values) {
            assert!((v - f32::from(*q) * scale).abs() <= scale / 2.0, "{v}");
        }
        let (scale, zeros) = symmetric(&[0.0; 4]);
        assert_eq!((scale, zeros.collect::<Vec<_>>()), (1.0, vec![0; 4]));
    }

    #[test]
    fn products_are_within_a_percent_of_f32s() {
        for (inputs, outputs, rows) in
            [(384, 384, 112), (1536, 384, 9), (384, 1536, 1), (16, 32, 3)]
        {
            let (linear, xs) = case(inputs, outputs, rows);
            let layer = Int8Linear::quantize(&linear).unwrap().unwrap();
            let (exact, int8) = (linear.forward(&xs).unwrap(), layer.forward(&xs).unwrap());
            assert_eq!(int8.dims(), [1, rows, outputs]);
            let error = largest(&(exact.clone() - int8).unwrap()) / largest(&exact);
            assert!(error < 0.01, "{inputs}→{outputs}, {rows} rows: {error}");
        }
    }

    #[test]
    fn a_layer_whose_shape_does_not_fit_the_blocks_stays_f32() {
        for (inputs, outputs) in [(24, 32), (32, 24)] {
            let (linear, _) = case(inputs, outputs, 1);
            assert!(Int8Linear::quantize(&linear).unwrap().is_none());
        }
    }

    /// Rows in tiles of 32 and every tail of one to 31, two steps of inputs, two pairs of
    /// blocks; and BERT's shapes.
    #[cfg(all(target_arch = "x86_64", target_os = "linux"))]
    #[test]
    fn the_amx_kernel_gives_the_portable_kernels_outputs_to_the_bit() {
        if !amx::available() {
            eprintln!("this CPU or kernel has no AMX: the kernel cannot run here");
            return;
        }
        let tails = (1..=33).map(|rows| (128, 64, rows));
        for (inputs, outputs, rows) in tails.chain([(384, 1536, 55), (1536, 384, 40)]) {
            let (linear, xs) = case(inputs, outputs, rows);
            let xs: Vec<f32> = xs.flatten_all().unwrap().to_vec1().unwrap();
            let outputs_of = |kernel| {
                let packed = Packed::quantize(&linear).unwrap().unwrap();
                let layer = Int8Linear { packed, kernel };
                let out = layer.product(&xs, rows);
                out.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            };
            assert_eq!(
                outputs_of(Kernel::Amx),
                outputs_of(Kernel::Portable),
                "{inputs}→{outputs}, {rows} rows"
            );
        }
    }

    /// Rows in blocks of eight and every tail of one to seven, outputs in pairs of blocks and
    /// alone.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_vnni_kernel_gives_the_portable_kernels_outputs_to_the_bit() {
        if !available() {
            eprintln!("this CPU has no AVX-512 VNNI: the kernel cannot run here");
            return;
        }
        let tails = (1..=16).map(|rows| (64, 48, rows));
        for (inputs, outputs, rows) in tails.chain([(384, 16, 17), (32, 384, 23)]) {
            let (linear, xs) = case(inputs, outputs, rows);
            let layer = Int8Linear::quantize(&linear).unwrap().unwrap();
            let xs: Vec<f32> = xs.flatten_all().unwrap().to_vec1().unwrap();
            let run = |simd: bool| {
                let mut quantized = vec![0; rows * inputs];
                let mut scales = vec![Scale::default(); rows];
                let mut out = vec![0.0; rows * outputs];
                if simd {
                    // SAFETY: the CPU has the instructions (checked above).
                    unsafe {
                        vnni::quantize(&xs, inputs, &mut quantized, &mut scales);
                        vnni::product(&layer.packed, &quantized, &scales, &mut out);
                    }
                } else {
                    packed::quantize(&xs, inputs, &mut quantized, &mut scales);
                    packed::product(&layer.packed, &quantized, &scales, &mut out);
                }
                (quantized, scales, out)
            };
            let (simd, portable) = (run(true), run(false));
            assert_eq!(
                simd.0, portable.0,
                "{inputs}→{outputs}, {rows} rows: the bytes"
            );
            assert_eq!(
                simd.1, portable.1,
                "{inputs}→{outputs}, {rows} rows: the scales"
            );
            let bits = |out: &[f32]| out.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(
                bits(&simd.2),
                bits(&portable.2),
                "{inputs}→{outputs}, {rows} rows"
            );
        }
    }
}
