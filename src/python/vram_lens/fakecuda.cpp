// VRAM Lens: Predict VRAM. A PyTorch without a usable GPU refuses even fake 'cuda' tensors, which hold no
// data: autograd asks the CUDA device guard for streams, and `.to('cuda')` and autocast ask the CUDA hooks; a
// CUDA build on a machine without a GPU has both, but they ask the driver. This library registers do-nothing
// versions of both (c10's FakeGuardImpl, and hooks that report one device): nothing here allocates, copies or
// computes. Built by nativebuild.py once per PyTorch with that PyTorch's own headers, loaded by nativecuda.py
// before `import torch` (PyTorch looks its hooks up while it is imported); in a CUDA build, after PyTorch's
// own CUDA libraries, so that this guard replaces theirs and these hooks, registered with a higher priority,
// are the ones PyTorch creates.
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/impl/FakeGuardImpl.h>

C10_REGISTER_GUARD_IMPL(CUDA, c10::impl::FakeGuardImpl<c10::DeviceType::CUDA>);

namespace {
// No `override`: the interface has changed between PyTorch versions, and a method a version lacks is then
// simply one more method. Both forms of hasPrimaryContext are given for the same reason.
struct PredictedCUDAHooks final : at::CUDAHooksInterface {
  PredictedCUDAHooks(at::CUDAHooksArgs) {}
  void init() const {}
  void initCUDA() const {}
  bool isBuilt() const { return true; }
  bool isAvailable() const { return true; }
  bool hasCUDA() const { return true; }
  bool hasPrimaryContext(c10::DeviceIndex) const { return true; }
  bool hasPrimaryContext(int64_t) const { return true; }
  c10::DeviceIndex deviceCount() const { return 1; }
  c10::DeviceIndex current_device() const { return 0; }
  c10::DeviceIndex getCurrentDevice() const { return 0; }
  void setCurrentDevice(c10::DeviceIndex) const {}
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex) const { return 0; }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex) const { return 0; }
  int getNumGPUs() const { return 1; }
  void deviceSynchronize(c10::DeviceIndex) const {}
};
}  // namespace
namespace at {
C10_REGISTER_CLASS_WITH_PRIORITY(CUDAHooksRegistry, CUDAHooks, c10::REGISTRY_PREFERRED, PredictedCUDAHooks);
}

// Whether PyTorch reports a CUDA device: after loading, nativecuda.py asks, and says so when it does not.
extern "C" int vram_lens_cuda_reported() { return at::detail::getCUDAHooks().hasCUDA() ? 1 : 0; }
