import { test } from 'vitest-energy'

test('screen 3 step 1', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(237)
})
test('screen 3 step 2', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(215)
})
test('screen 3 step 3', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(259)
})
test('screen 3 step 4', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(215)
})
test('screen 3 step 5', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(408)
})
test('screen 3 step 6', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(212)
})
test('screen 3 step 7', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(450)
})
test('screen 3 step 8', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(410)
})
test('screen 3 step 9', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(293)
})
test('screen 3 step 10', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(414)
})
